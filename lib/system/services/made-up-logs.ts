// Plausible journal lines for the sandbox's units, so the live log view has something to show on a
// laptop. Only `npm start` asks for them (SystemContext.madeUpLogsEveryMs); tests get exact journals.
import type { Clock } from '../../clock.ts';
import type { ServiceName } from '../types.ts';
import type { SandboxControls } from '../sandbox/controls.ts';

type MadeUpUnit = Exclude<ServiceName, 'panel'>;

const PATHS = ['/', '/api/health', '/assets/app.js', '/favicon.ico', '/login'];

const LINES: Record<MadeUpUnit, (n: number) => string> = {
  proxy: (n) => `127.0.0.1 - - "GET ${PATHS[n % PATHS.length]} HTTP/1.1" ${n % 9 === 0 ? 304 : 200} ${512 + ((n * 97) % 4096)} "-" "Mozilla/5.0 (sandbox)"`,
  'tunnel-server': (n) =>
    n % 3 === 0 ? `server: session#${n}: Handshaking with 127.0.0.1:${40000 + (n % 1000)}...` : `server: session#${n - (n % 3)}: tun: Bound proxies`,
  'auth-portal': (n) =>
    n % 4 === 0
      ? `level=info msg="Successful 2FA authentication" method=TOTP remote_ip=127.0.0.1 username=admin`
      : `level=debug msg="Check authorization of subject username= groups= ip=127.0.0.1 and object https://app.example.test/ (method GET)."`,
};

const isMadeUp = (name: ServiceName): name is MadeUpUnit => name !== 'panel';

/** Appends a made-up line now and then every `everyMs` while the unit is active; returns the stop function. */
export function feedMadeUpLines(controls: SandboxControls, name: ServiceName, everyMs: number, clock: Clock): () => void {
  if (!isMadeUp(name)) return () => {};
  let n = 0;
  const tick = () => {
    if (controls.units.get(name)?.status === 'active') controls.appendLog(name, LINES[name](n++));
  };
  tick();
  return clock.every(everyMs, tick);
}
