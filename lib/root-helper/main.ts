// The root helper's commands:
//   server.mjs root-helper --config FILE [--socket PATH --socket-group NAME] [--idle-exit SECONDS]
//     the service (relay-panel-root.service), root, on systemd's socket or a path of its own;
//   server.mjs root-call --socket PATH nginx-reload|nginx-test
//     one request and its answer: certbot's deploy hook, run as the panel's user.
// Exit 0 when done; 1 with one line on stderr when refused or failed; 2 on usage.
import { execFileSync } from 'node:child_process';
import { parseArgs } from 'node:util';
import type { Writable } from 'node:stream';
import { takeListenFd } from '../node/systemd-socket.ts';
import { rootCall } from '../system/root/root-client.ts';
import type { PublicLocations } from '../system/types.ts';
import { ROOT_CALL_COMMAND } from './command.ts';
import { readHelperConfig } from './config.ts';
import { createDispatcher } from './dispatch.ts';
import { startHelperServer } from './server.ts';

export const ROOT_HELPER_USAGE = `usage: relay-panel root-helper --config FILE [--socket PATH --socket-group NAME] [--idle-exit SECONDS]
       relay-panel root-call --socket PATH nginx-reload|nginx-test`;
const CALLS = ['nginx-reload', 'nginx-test'] as const;
/** A helper nobody asked anything for this long exits; its socket unit starts it again. */
const DEFAULT_IDLE_S = 300;

function groupId(name: string): number {
  const line = execFileSync('/usr/bin/getent', ['group', name], { encoding: 'utf8' });
  return Number(line.split(':')[2]);
}

async function call(argv: string[], errors: Pick<Writable, 'write'>): Promise<number> {
  const { values, positionals } = parseArgs({ args: argv, options: { socket: { type: 'string' } }, allowPositionals: true, strict: true });
  const action = positionals[0] as (typeof CALLS)[number];
  if (!values.socket || positionals.length !== 1 || !CALLS.includes(action)) throw new Error(`one action: ${CALLS.join(' or ')}`);
  try {
    await rootCall(values.socket, 120_000)({ action });
    return 0;
  } catch (e) {
    errors.write(`${(e as Error).message.replace(/\s*\n\s*/g, '; ')}\n`);
    return 1;
  }
}

async function helper(argv: string[], publicLocations: PublicLocations): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: { config: { type: 'string' }, socket: { type: 'string' }, 'socket-group': { type: 'string' }, 'idle-exit': { type: 'string' } },
    strict: true,
  });
  const idleS = Number(values['idle-exit'] ?? DEFAULT_IDLE_S);
  if (!values.config || !Number.isFinite(idleS) || idleS < 0) throw new Error('--config FILE is required; --idle-exit takes seconds');
  const config = await readHelperConfig(values.config);
  const fd = takeListenFd(process.env);
  const listen = fd !== null ? { fd } : { path: values.socket, ...(values['socket-group'] ? { gid: groupId(values['socket-group']) } : {}) };
  const server = await startHelperServer({
    dispatcher: createDispatcher(config, publicLocations, (line) => console.log(line)),
    listen,
    idleMs: idleS * 1000,
    log: (line) => console.log(line),
    onIdle: () => server.close(() => process.exit(0)),
  });
  console.log(`relay-panel root helper listening on ${fd !== null ? 'the socket systemd passed' : values.socket}`);
  for (const signal of ['SIGTERM', 'SIGINT'] as const) process.on(signal, () => server.close(() => process.exit(0)));
  // the server keeps the process alive; the exit comes from onIdle or a signal
  return new Promise<number>(() => undefined);
}

export async function runRootHelper(command: string, argv: string[], publicLocations: PublicLocations, errors: Pick<Writable, 'write'> = process.stderr): Promise<number> {
  try {
    return command === ROOT_CALL_COMMAND ? await call(argv, errors) : await helper(argv, publicLocations);
  } catch (e) {
    errors.write(`relay-panel ${command}: ${(e as Error).message}\n${ROOT_HELPER_USAGE}\n`);
    return 2;
  }
}
