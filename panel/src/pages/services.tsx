// The four services (GET /api/services): each one's state, the actions that fit that state, and its
// live log (WS /api/services/:name/logs). After an action the list is read again from the server, so
// what is shown is what the host reports, not what the action hoped for.
import { useRef, useState } from 'preact/hooks';
import { api, type GetAnswer } from '../api.ts';
import { Action } from '../components/action.tsx';
import { LogViewer } from '../components/log-viewer.tsx';
import { rememberFocus } from '../components/focus-return.ts';
import { ErrorText, Loading, Unavailable } from '../components/notice.tsx';
import { Badge, Table } from '../components/table.tsx';
import { useResource } from '../resource.ts';

export type Service = GetAnswer<'/api/services'>['services'][number];
type ServiceAction = 'start' | 'stop' | 'restart' | 'reload';

/** The API refuses to stop these: the panel is served by itself behind the proxy. */
const NOT_STOPPABLE = ['panel', 'proxy'];
/** Stopping or restarting cuts off whoever uses the service: asked first. */
const ASKED_FIRST: readonly ServiceAction[] = ['stop', 'restart'];

/** A running service can be stopped (where allowed), restarted or reloaded; any other state can only be started. */
export function actionsFor(service: Service): ServiceAction[] {
  if (service.status !== 'active') return ['start'];
  return NOT_STOPPABLE.includes(service.name) ? ['restart', 'reload'] : ['stop', 'restart', 'reload'];
}

const title = (word: string) => `${word[0]!.toUpperCase()}${word.slice(1)}`;

export function ServicesPage() {
  const services = useResource('/api/services', 10_000);
  const [logsOf, setLogsOf] = useState<string>();
  // the Log button that opened the viewer, where focus goes back when it closes
  const focusBack = useRef<(() => void) | undefined>(undefined);
  const showLog = (name: string) => { focusBack.current = rememberFocus(); setLogsOf(name); };
  const closeLog = () => { setLogsOf(undefined); focusBack.current?.(); };
  const [error, setError] = useState<string>();
  if (services.unavailable) return <><h1>Services</h1><Unavailable feature="Services" /></>;
  async function act(name: string, action: ServiceAction) {
    setError(undefined);
    try {
      await api('POST', `/api/services/${encodeURIComponent(name)}/${action}`);
    } finally {
      // Also after a refusal or failure: the action may have changed the state before it failed.
      await services.reload();
    }
  }
  const rows = (services.data?.services ?? []).map((s) => [
    s.name,
    <Badge status={s.status} />,
    s.uptime || '—',
    <div class="actions">
      {actionsFor(s).map((a) => (
        <Action key={`${s.name}-${a}`} label={`${title(a)} ${s.name}`} onError={setError} done={`${s.name} ${a === 'stop' ? 'stopped' : `${a}ed`}.`}
          confirm={ASKED_FIRST.includes(a) ? `${title(a)} ${s.name}?` : undefined} run={() => act(s.name, a)}>{title(a)}</Action>
      ))}
      <button type="button" class="btn" aria-label={`Log of ${s.name}`} aria-pressed={logsOf === s.name} onClick={() => showLog(s.name)}>Log</button>
    </div>,
  ]);
  return (
    <>
      <h1>Services</h1>
      <p class="muted">The reverse proxy, the tunnel server, the authentication portal and this panel, as the host reports them (read again every 10 s and after each action).</p>
      <ErrorText message={error ?? services.error} />
      {!services.data ? <Loading /> : <Table caption="Services and their state" head={['Service', 'Status', 'Uptime', 'Actions']} rows={rows} empty="No services reported." />}
      {logsOf && <LogViewer key={logsOf} service={logsOf} onClose={closeLog} />}
    </>
  );
}
