import { useEffect, useRef, useState } from 'preact/hooks';
import { wsUrl, type WsMessage } from '../api.ts';
import { useRevealed } from './focus-return.ts';

const KEEP = 500;

type LogLine = WsMessage<'/api/services/:name/logs'>;

/** Follows WS /api/services/:name/logs; keeps the last lines only. */
export function LogViewer({ service, onClose }: { service: string; onClose(): void }) {
  const [lines, setLines] = useState<LogLine[]>([]);
  const [state, setState] = useState('connecting');
  const box = useRef<HTMLPreElement>(null);
  // it opens below the services table, often out of view: brought there with focus on its heading
  const heading = useRevealed<HTMLHeadingElement>();
  useEffect(() => {
    const ws = new WebSocket(wsUrl(`/api/services/${encodeURIComponent(service)}/logs`));
    ws.onopen = () => setState('live');
    ws.onclose = (e) => setState(e.code === 1000 ? 'closed' : `closed (${e.reason || 'connection lost'})`);
    ws.onmessage = (e) => {
      try {
        const line = JSON.parse(String(e.data)) as LogLine;
        setLines((all) => [...all.slice(-(KEEP - 1)), line]);
      } catch { /* not a log line */ }
    };
    return () => ws.close();
  }, [service]);
  useEffect(() => { const el = box.current; if (el) el.scrollTop = el.scrollHeight; }, [lines]);
  return (
    <section class="card" aria-labelledby="log-title">
      <div class="row spread">
        <h3 id="log-title" ref={heading} tabIndex={-1}>Logs of {service}</h3>
        <span class="muted" role="status">{state}</span>
        <button type="button" class="btn" onClick={onClose}>Close logs</button>
      </div>
      <pre class="log tall" ref={box} tabIndex={0} aria-label={`Log lines of ${service}`}>
        {lines.map((l) => `${l.timestamp} ${l.message}\n`).join('')}
      </pre>
    </section>
  );
}
