// The one-time wizard: domain and email, DNS check, provisioning with live progress, credentials.
import { useEffect, useRef, useState } from 'preact/hooks';
import { api, ApiError, describe, wsUrl, type GetAnswer, type UrlAnswer, type WsMessage } from '../api.ts';
import { Submit } from '../components/action.tsx';
import { Field } from '../components/field.tsx';
import { useKeyboardScroll } from '../components/keyboard-scroll.ts';
import { ErrorText, Loading, Note } from '../components/notice.tsx';
import { ShownOnce } from '../components/secret.tsx';
import { useForm } from '../form.ts';
import { CertificateMode } from './certificate-mode.tsx';

type Status = GetAnswer<'/api/onboarding/status'>;
/** The DNS report: the answer of verify-dns, or the same report in a 400's `details`. */
type DnsResult = Omit<UrlAnswer<'POST', '/api/onboarding/verify-dns'>, 'ok'>;
type Probe = DnsResult['base'];
const STREAM = '/api/onboarding/provision/stream';
type StreamMessage = WsMessage<typeof STREAM>;
type TaskView = Extract<StreamMessage, { type: 'state' }>['tasks'][number];
type Complete = Extract<StreamMessage, { type: 'complete' }>;
type RunState = Extract<StreamMessage, { type: 'state' }>['run'] | 'connecting';

const STEPS = ['Domain', 'DNS', 'Provisioning'] as const;
const URL_NAMES: Record<string, string> = { panel: 'Panel', authPortal: 'Authentication portal', ip: 'Panel by IP address' };

function Steps({ at }: { at: number }) {
  return (
    <ol class="steps">
      {STEPS.map((s, i) => <li key={s} aria-current={i === at ? 'step' : undefined} class={i < at ? 'done' : ''}>{s}</li>)}
    </ol>
  );
}

function DomainStep({ status, onSaved }: { status: Status; onSaved(s: Status): void }) {
  // the sandbox offers relay.localhost, a name the browser itself resolves to this machine
  const form = useForm({ domain: status.domain ?? status.suggestedDomain ?? '', email: status.email ?? '' });
  return (
    <form class="card" onSubmit={(e) => { e.preventDefault(); void form.submit(async () => {
      const saved = await api('POST', '/api/onboarding/domain', form.values);
      onSaved({ ...status, status: saved.status, domain: saved.domain, email: saved.email });
    }); }}>
      <h2>Domain and email</h2>
      <p>The base domain of this box (subdomains such as panel.&lt;domain&gt; are made from it) and the email for certificate registration.</p>
      <ErrorText message={form.error} />
      <Field label="Domain" value={form.values.domain} onInput={(v) => form.set('domain', v)} error={form.fieldErrors.domain} hint={status.suggestedDomain ? `In the sandbox: ${status.suggestedDomain} (browsers resolve every *.localhost name to this machine)` : 'For example relay.example.com'} required />
      <Field label="Email" type="email" value={form.values.email} onInput={(v) => form.set('email', v)} error={form.fieldErrors.email} autoComplete="email" required />
      <Submit busy={form.busy}>Save</Submit>
    </form>
  );
}

function ProbeRow({ label, probe }: { label: string; probe: Probe | undefined }) {
  if (!probe) return null;
  return (
    <tr>
      <th scope="row">{label}</th>
      <td><code>{probe.name}</code></td>
      <td>{probe.addresses.length ? probe.addresses.join(', ') : 'does not resolve'}</td>
      <td class={probe.ok ? 'ok' : 'bad'}>{probe.ok ? 'OK' : 'Not OK'}</td>
    </tr>
  );
}

function DnsStep({ status, onReady, onEdit }: { status: Status; onReady(): void; onEdit(): void }) {
  const [result, setResult] = useState<DnsResult>();
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  const resultsBox = useKeyboardScroll<HTMLDivElement>('DNS results');
  async function check() {
    setBusy(true);
    setError(undefined);
    try {
      setResult(await api('POST', '/api/onboarding/verify-dns'));
    } catch (e) {
      setError(describe(e));
      if (e instanceof ApiError && e.body?.details?.base) setResult(e.body.details);
    } finally {
      setBusy(false);
    }
  }
  const ready = status.status === 'DNS_READY' || Boolean(result?.base?.ok);
  return (
    <section class="card" aria-labelledby="dns-title">
      <h2 id="dns-title">DNS check</h2>
      <p>Point <code>{status.domain}</code> and <code>*.{status.domain}</code> (A records) at this box's IP address, then check.</p>
      <div class="row">
        <button type="button" class="btn btn-primary" onClick={check} disabled={busy} aria-busy={busy}>{busy ? 'Checking…' : 'Check DNS'}</button>
        {status.status === 'DOMAIN_SET' && <button type="button" class="btn" onClick={onEdit}>Change domain</button>}
      </div>
      <ErrorText message={error} />
      {result?.base && (
        <div class="table-wrap" ref={resultsBox}>
          <table>
            <caption>DNS results{result.ip ? ` (expected ${result.ip})` : ''}</caption>
            <thead><tr><th scope="col">Check</th><th scope="col">Name</th><th scope="col">Resolves to</th><th scope="col">Result</th></tr></thead>
            <tbody><ProbeRow label="Base" probe={result.base} /><ProbeRow label="Wildcard" probe={result.wildcard} /></tbody>
          </table>
        </div>
      )}
      {result?.message && <Note kind={result.wildcard && !result.wildcard.ok ? 'warn' : 'info'}>{result.message}</Note>}
      {ready && <button type="button" class="btn btn-primary" onClick={onReady}>Continue to provisioning</button>}
    </section>
  );
}

function TaskList({ tasks }: { tasks: TaskView[] }) {
  return (
    <ol class="tasks">
      {tasks.map((t) => (
        <li key={t.task} class={`task task-${t.status}`} data-task={t.task}>
          <div class="task-head"><strong>{t.title}</strong> <span class={`badge badge-${t.status}`}>{t.status}</span></div>
          {t.message && <p class="task-message">{t.message}</p>}
          {t.log && <details><summary>Log of {t.title}</summary><pre class="log">{t.log}</pre></details>}
        </li>
      ))}
    </ol>
  );
}

function ProvisionStep({ onFinished }: { onFinished(): void }) {
  const [tasks, setTasks] = useState<TaskView[]>([]);
  const [progress, setProgress] = useState({ current: 0, total: 6 });
  const [run, setRun] = useState<RunState>('connecting');
  const [failure, setFailure] = useState<string>();
  const [done, setDone] = useState<Complete>();
  const [connected, setConnected] = useState(false);
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  const socket = useRef<WebSocket | undefined>(undefined);
  const opened = useRef<Promise<void> | undefined>(undefined);

  function connect() {
    const ws = new WebSocket(wsUrl(STREAM));
    socket.current = ws;
    opened.current = new Promise((resolve) => {
      ws.onopen = () => { setConnected(true); resolve(); };
      ws.onerror = () => resolve();
    });
    ws.onclose = () => setConnected(false);
    ws.onmessage = (event) => {
      const m = JSON.parse(String(event.data)) as StreamMessage;
      setProgress(m.progress);
      if (m.type === 'state') {
        setTasks(m.tasks);
        setRun(m.run);
        setFailure(m.error?.message);
        return;
      }
      setTasks((all) => all.map((t) => (t.task === m.task ? { task: m.task, title: m.title, status: m.status, message: m.message, log: m.log } : t)));
      if (m.type === 'error') { setRun('failed'); setFailure(m.message); }
      if (m.type === 'complete') { setRun('completed'); setDone(m); }
    };
  }

  useEffect(() => { connect(); return () => socket.current?.close(); }, []);

  async function start() {
    setBusy(true);
    setError(undefined);
    setFailure(undefined);
    try {
      // The password is sent once, to the clients connected at that moment: be connected first.
      if (!connected) { connect(); await opened.current; }
      await api('POST', '/api/onboarding/provision');
    } catch (e) {
      setError(describe(e));
    } finally {
      setBusy(false);
    }
  }

  if (done?.credentials) {
    return (
      <section class="card" aria-labelledby="done-title">
        <h2 id="done-title">Provisioning complete</h2>
        <ShownOnce title="Admin account of the authentication portal" values={{ Username: done.credentials.username, Password: done.credentials.password }} />
        {done.urls && (
          <dl class="urls">{Object.entries(done.urls).map(([k, v]) => <div key={k}><dt>{URL_NAMES[k] ?? k}</dt><dd><a href={v}>{v}</a></dd></div>)}</dl>
        )}
        <button type="button" class="btn btn-primary" onClick={onFinished}>I have saved the password: open the panel</button>
      </section>
    );
  }
  const canStart = run === 'idle' || run === 'failed';
  return (
    <section class="card" aria-labelledby="prov-title">
      <h2 id="prov-title">Provisioning</h2>
      <p>Installs the tunnel server and the authentication portal, issues certificates, writes the proxy configuration and checks the services.</p>
      <progress max={progress.total} value={progress.current} aria-label="Provisioning progress">{progress.current} of {progress.total}</progress>
      <p class="muted" role="status">{progress.current} of {progress.total} tasks done{run === 'running' ? ' — running' : ''}{!connected && run !== 'connecting' ? ' (live progress disconnected)' : ''}</p>
      {failure && <p class="error" role="alert">Provisioning failed: {failure}</p>}
      <ErrorText message={error} />
      {canStart && <button type="button" class="btn btn-primary" onClick={start} disabled={busy} aria-busy={busy}>{run === 'failed' ? 'Retry provisioning' : 'Start provisioning'}</button>}
      {!connected && run !== 'connecting' && run !== 'completed' && <button type="button" class="btn" onClick={connect}>Reconnect</button>}
      <TaskList tasks={tasks} />
    </section>
  );
}

export function OnboardingPage({ onFinished }: { onFinished(): void }) {
  const [status, setStatus] = useState<Status>();
  const [error, setError] = useState<string>();
  const [editing, setEditing] = useState(false);
  const [provisioning, setProvisioning] = useState(false);
  useEffect(() => { api('GET', '/api/onboarding/status').then(setStatus, (e) => setError(describe(e))); }, []);
  if (error) return <ErrorText message={error} />;
  if (!status) return <Loading />;
  const s = status.status;
  const step = provisioning || s === 'PROVISIONING' ? 2 : s === 'FRESH' || editing ? 0 : 1;
  return (
    <>
      <h1>Set up this relay</h1>
      <Steps at={step} />
      {step === 0 && <DomainStep status={status} onSaved={(saved) => { setStatus(saved); setEditing(false); }} />}
      {step === 1 && <DnsStep status={status} onReady={() => setProvisioning(true)} onEdit={() => setEditing(true)} />}
      {/* optional, and changeable later in Settings: tunnels and sites then need no certificate of their own */}
      {step === 1 && <CertificateMode />}
      {step === 2 && <ProvisionStep onFinished={onFinished} />}
    </>
  );
}
