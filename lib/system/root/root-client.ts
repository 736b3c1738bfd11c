// The panel's side of the root helper (lib/root-helper): one connection to its Unix socket per
// request (root-protocol.ts). The socket is root's, group the panel's, mode 0660: the panel is the
// only caller, and what it may ask is what the helper's schema allows.
import type { Socket } from 'node:net';
import { SystemError, type StreamChange, type VhostChange, type VhostSpec } from '../types.ts';
import { parseActiveState } from '../systemd/systemd-output.ts';
import type { RootActions } from './root-actions.ts';
import type { RootAnswer, RootRequest } from './root-protocol.ts';
import type { DnsPluginPackage } from '../packages/dns-plugin-packages.ts';

const MAX_ANSWER_BYTES = 64 * 1024;

export type RootCall = (request: RootRequest) => Promise<RootAnswer & { ok: true }>;

/** Sends one request; a refusal or a failed action throws a SystemError with the helper's words. */
export function rootCall(socket: string, timeoutMs: number): RootCall {
  return (request) =>
    new Promise((resolve, reject) => {
      const { createConnection } = process.getBuiltinModule('node:net');
      const conn: Socket = createConnection(socket);
      const chunks: Buffer[] = [];
      let size = 0;
      const fail = (message: string, code?: string) => {
        conn.destroy();
        reject(new SystemError(`root helper: ${message}`, 'relay-panel-root', undefined, code));
      };
      conn.setTimeout(timeoutMs, () => fail(`no answer within ${timeoutMs} ms`, 'timeout'));
      conn.on('error', (e: NodeJS.ErrnoException) => fail(`cannot reach ${socket}: ${e.code ?? e.message}`, e.code));
      conn.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > MAX_ANSWER_BYTES) return fail('answer too large');
        chunks.push(chunk);
      });
      conn.on('end', () => {
        let answer: RootAnswer;
        try {
          answer = JSON.parse(Buffer.concat(chunks).toString('utf8')) as RootAnswer;
        } catch {
          return fail('answer is not JSON');
        }
        conn.end();
        if (answer.ok) resolve(answer);
        else reject(new SystemError(answer.error, answer.program ?? 'relay-panel-root', answer.details));
      });
      conn.end(JSON.stringify(request));
    });
}

export interface SocketRootActions extends RootActions {
  applyVhosts(changes: VhostChange[]): Promise<void>;
  /** the names the helper rewrote */
  refreshVhosts(specs: VhostSpec[]): Promise<string[]>;
  /** apt-get install or remove of one of certbot's DNS plugin packages, as root */
  dnsPlugin(op: 'install' | 'remove', name: DnsPluginPackage): Promise<void>;
  /** the TCP and UDP tunnels' stream servers: written, tested and reloaded by the helper, rolled back on a failure */
  applyStreams(changes: StreamChange[]): Promise<void>;
}

export function socketRootActions(call: RootCall): SocketRootActions {
  return {
    // the helper's word read again, as systemctl's is: anything else is 'unknown'
    unitState: (unit) => call({ action: 'unit-state', unit }).then((a) => parseActiveState(a.state ?? ''), () => 'unknown' as const),
    unitProperties: (unit, properties) => call({ action: 'unit-properties', unit, properties }).then((a) => a.properties ?? {}),
    controlUnit: async (unit, op) => void (await call({ action: 'unit', unit, op })),
    daemonReload: async () => void (await call({ action: 'daemon-reload' })),
    nginxTest: async () => void (await call({ action: 'nginx-test' })),
    nginxReload: async () => void (await call({ action: 'nginx-reload' })),
    applyVhosts: async (changes) => void (await call({ action: 'vhosts', changes })),
    refreshVhosts: async (specs) => (await call({ action: 'vhosts-refresh', specs })).rewritten ?? [],
    dnsPlugin: async (op, name) => void (await call({ action: 'dns-plugin', op, package: name })),
    applyStreams: async (changes) => void (await call({ action: 'streams', changes })),
  };
}
