import { useEffect, useState } from 'preact/hooks';
import { api, ApiError, describe, type ApiUrl, type GetAnswer } from '../api.ts';
import { LineChart } from '../components/chart.tsx';
import { ErrorText, Loading, Unavailable } from '../components/notice.tsx';
import { Badge } from '../components/table.tsx';
import { bytes, duration, percent } from '../format.ts';
import { useResource } from '../resource.ts';
import { useTunnelStatus } from '../tunnel-status.ts';

type Stats = GetAnswer<'/api/system/stats'>;

const SAMPLES = 150; // 5 minutes at one sample every 2 s

function StatsCard() {
  const [stats, setStats] = useState<Stats>();
  const [history, setHistory] = useState<{ cpu: number[]; memory: number[] }>({ cpu: [], memory: [] });
  const [state, setState] = useState<'ok' | 'unavailable' | string>('ok');
  useEffect(() => {
    let alive = true;
    async function sample() {
      try {
        const s = await api('GET', '/api/system/stats');
        if (!alive) return;
        setStats(s);
        setState('ok');
        setHistory((h) => ({ cpu: [...h.cpu, s.cpu.usage].slice(-SAMPLES), memory: [...h.memory, percent(s.memory.used, s.memory.total)].slice(-SAMPLES) }));
      } catch (e) {
        if (alive) setState(e instanceof ApiError && e.missingRoute ? 'unavailable' : describe(e));
      }
    }
    void sample();
    const timer = setInterval(sample, 2000);
    return () => { alive = false; clearInterval(timer); };
  }, []);
  if (state === 'unavailable') return <section class="card"><h2>System</h2><Unavailable feature="System statistics" /></section>;
  return (
    <section class="card" aria-labelledby="stats-title">
      <h2 id="stats-title">System</h2>
      {state !== 'ok' && <ErrorText message={state} />}
      {!stats ? <Loading /> : (
        <>
          <LineChart label="CPU and memory use over the last minutes" capacity={SAMPLES}
            series={[{ name: 'CPU', values: history.cpu, className: 'cpu' }, { name: 'Memory', values: history.memory, className: 'mem' }]} />
          <dl class="facts">
            <div><dt>CPU</dt><dd>{stats.cpu.usage.toFixed(1)}% of {stats.cpu.cores} cores</dd></div>
            <div><dt>Memory</dt><dd>{bytes(stats.memory.used)} of {bytes(stats.memory.total)}</dd></div>
            <div><dt>Disk</dt><dd>{bytes(stats.disk.used)} of {bytes(stats.disk.total)} ({bytes(stats.disk.free)} free)</dd></div>
            <div><dt>Uptime</dt><dd>{duration(stats.uptime)}</dd></div>
          </dl>
        </>
      )}
    </section>
  );
}

/** The services' states only; acting on them and their logs are on the Services page. */
function ServicesCard() {
  const services = useResource('/api/services', 10_000);
  if (services.unavailable) return <section class="card"><h2>Services</h2><Unavailable feature="Services" /></section>;
  return (
    <section class="card" aria-labelledby="services-title">
      <h2 id="services-title">Services</h2>
      <ErrorText message={services.error} />
      {!services.data ? <Loading /> : (
        <dl class="facts">
          {services.data.services.map((s) => <div key={s.name}><dt>{s.name}</dt><dd><Badge status={s.status} /></dd></div>)}
        </dl>
      )}
      <p><a href="/services">Manage services and see their logs</a></p>
    </section>
  );
}

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

/** The tunnels in numbers; the ones down are a link to their filtered list, not listed here (with hundreds they filled the page). */
function TunnelsCard() {
  const status = useTunnelStatus();
  if (status.unavailable) return null;
  const tunnels = status.data?.tunnels ?? [];
  const enabled = tunnels.filter((t) => t.enabled).length;
  const down = tunnels.filter((t) => t.enabled && !t.connected).length;
  return (
    <section class="card" aria-labelledby="tunnels-title">
      <h2 id="tunnels-title">Tunnels</h2>
      <ErrorText message={status.error} />
      {!status.data ? <Loading /> : (
        <>
          <dl class="counts">
            <div><dt>Tunnels</dt><dd>{tunnels.length}</dd></div>
            <div><dt>Enabled</dt><dd>{enabled}</dd></div>
            <div><dt>Client down</dt><dd>{down}</dd></div>
          </dl>
          <p>{enabled === 0 ? 'No enabled tunnels.' : down === 0 ? <strong>All tunnels up</strong>
            : <a href="/tunnels?state=down"><strong>{plural(down, 'tunnel down', 'tunnels down')}</strong></a>}</p>
        </>
      )}
    </section>
  );
}

/** A count from a list route: '…' while it loads, '—' where it failed or is not on this server. */
function useCount<U extends ApiUrl<'GET'>>(path: U, count: (data: GetAnswer<U>) => number): string {
  const resource = useResource(path);
  if (resource.data) return String(count(resource.data));
  return resource.error || resource.unavailable ? '—' : '…';
}


/** How much the relay holds; the sections' own pages are one click away in the header. */
function CountsCard() {
  const counts: [string, string][] = [
    ['Sites', useCount('/api/sites', (d) => d.sites.length)],
    ['Users', useCount('/api/users', (d) => d.users.length)],
    ['Active agents', useCount('/api/certs/agent', (d) => d.agents.filter((a) => !a.revoked).length)],
    ['Certificates expiring soon', useCount('/api/certs', (d) => d.certs.filter((c) => c.expiringSoon).length)],
  ];
  return (
    <section class="card" aria-labelledby="counts-title">
      <h2 id="counts-title">At a glance</h2>
      <dl class="counts">
        {counts.map(([label, value]) => <div key={label}><dt>{label}</dt><dd>{value}</dd></div>)}
      </dl>
    </section>
  );
}

export function DashboardPage() {
  return (
    <>
      <h1>Dashboard</h1>
      <TunnelsCard />
      <CountsCard />
      <StatsCard />
      <ServicesCard />
    </>
  );
}
