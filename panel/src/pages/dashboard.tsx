import { useEffect, useState } from 'preact/hooks';
import { api, ApiError, describe } from '../api.ts';
import { LineChart } from '../components/chart.tsx';
import { ErrorText, Loading, Unavailable } from '../components/notice.tsx';
import { Badge } from '../components/table.tsx';
import { bytes, duration, percent } from '../format.ts';
import { useResource } from '../resource.ts';
import { useTunnelStatus } from '../tunnel-status.ts';
import { ClientBadge } from '../components/tunnel-state.tsx';
import type { Service } from './services.tsx';

interface Stats {
  cpu: { usage: number; cores: number };
  memory: { total: number; used: number; free: number };
  disk: { total: number; used: number; free: number };
  uptime: number;
}

const SAMPLES = 150; // 5 minutes at one sample every 2 s

function StatsCard() {
  const [stats, setStats] = useState<Stats>();
  const [history, setHistory] = useState<{ cpu: number[]; memory: number[] }>({ cpu: [], memory: [] });
  const [state, setState] = useState<'ok' | 'unavailable' | string>('ok');
  useEffect(() => {
    let alive = true;
    async function sample() {
      try {
        const s = await api<Stats>('GET', '/api/system/stats');
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
  const services = useResource<{ services: Service[] }>('/api/services', 10_000);
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

function TunnelsCard() {
  const status = useTunnelStatus();
  if (status.unavailable) return null;
  const enabled = status.data?.tunnels.filter((t) => t.enabled) ?? [];
  const down = enabled.filter((t) => !t.connected);
  return (
    <section class="card" aria-labelledby="tunnels-title">
      <h2 id="tunnels-title">Tunnels</h2>
      <ErrorText message={status.error} />
      {!status.data ? <Loading /> : enabled.length === 0 ? <p class="muted">No enabled tunnels.</p> : (
        <>
          <p><strong>{down.length === 0 ? 'All tunnels up' : `${down.length} of ${enabled.length} tunnels down`}</strong> ({enabled.length - down.length} connected)</p>
          {down.length > 0 && <ul class="down-list">{down.map((t) => <li key={t.id}>{t.subdomain} <ClientBadge status={t} /></li>)}</ul>}
        </>
      )}
    </section>
  );
}

export function DashboardPage() {
  return (
    <>
      <h1>Dashboard</h1>
      <TunnelsCard />
      <StatsCard />
      <ServicesCard />
    </>
  );
}
