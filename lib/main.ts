import { createServer, type Server } from 'node:http';
import type { ListenOptions } from 'node:net';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { routes } from '../handlers/start-table.ts';
import { systemClock } from './clock.ts';
import { composePanel, type Panel, type PanelParts } from './compose.ts';
import { ConfigStore, portOverride, type ConfigInput } from './config.ts';
import type { App } from './http/app.ts';
import type { RouteEntry } from './http/lazy-route.ts';
import { errorMessage } from './errors.ts';
import { reconcileAtStart } from './host-state/reconcile.ts';
import { createLogger, parseLogLevel } from './log.ts';
import { attachNodeEdge, type NodeEdge } from './node/edge.ts';
import { takeListenFd } from './node/systemd-socket.ts';
import { sandboxWeb } from './sandbox-web/dispatch.ts';
import type { Mode } from './runtime.ts';
import { modeOf } from './mode.ts';
import { openStore } from './state/store.ts';
import { startMark, writeStartMarks } from './start-marks.ts';
import { panelReloadArgv } from './nginx-reload-names.ts';

export interface StartOptions {
  argv: readonly string[];
  env: NodeJS.ProcessEnv;
  cwd: string;
  /** Defaults to every route in handlers/index.ts. */
  routes?: readonly RouteEntry[];
  /** The spec's unless given (the benchmark lifts them). */
  ticketLimits?: PanelParts['ticketLimits'];
  /** A Unix socket to listen on instead of the configured address (the rehearsal start: lib/rehearsal.ts). */
  listenPath?: string;
  /**
   * How to run this panel's CLI (node and the launcher), when a bundle runs: certbot's deploy hook
   * on a box without a root helper runs its `nginx-reload` (lib/nginx-reload-command.ts).
   */
  panelCli?: readonly string[];
}

export interface RunningServer {
  app: App;
  server: Server;
  url: string;
  stop(): Promise<void>;
}

export const SANDBOX_DIR = '.relay-sandbox';
export const SANDBOX_PORT = 3100;
/** Where `npm run build` puts the admin client (build/panel.mjs). */
export const PANEL_BUILD_DIR = join('dist', 'panel');

function argValue(argv: readonly string[], name: string): string | undefined {
  const inline = argv.find((a) => a.startsWith(`${name}=`));
  if (inline) return inline.slice(name.length + 1);
  const at = argv.indexOf(name);
  return at >= 0 ? argv[at + 1] : undefined;
}

function sandboxConfig(cwd: string): ConfigInput {
  return {
    ip: '127.0.0.1',
    domain: null,
    email: null,
    dataDir: join(cwd, SANDBOX_DIR, 'data'),
    staticDir: join(cwd, PANEL_BUILD_DIR),
    onboarding: { status: 'FRESH' },
    // PORT overrides the port of one run (`start`), it is not written into the new sandbox
    listen: { host: '127.0.0.1', port: SANDBOX_PORT },
    system: { driver: 'sandbox' },
  };
}

/**
 * config -> store -> a built panel (lib/compose.ts), not started: the server starts it, the restore
 * command uses its services and closes it without starting anything.
 */
export async function openPanel(
  config: ConfigStore,
  options: { env: NodeJS.ProcessEnv; cwd: string; routes?: readonly RouteEntry[]; ticketLimits?: PanelParts['ticketLimits']; panelCli?: readonly string[] },
): Promise<Panel> {
  const { env, cwd } = options;
  const mode: Mode = modeOf(env.NODE_ENV);
  const log = createLogger({ level: parseLogLevel(env.LOG_LEVEL) });
  const store = await openStore(resolve(cwd, config.value.dataDir), { log });
  startMark('store');
  const panel = composePanel({
    mode,
    config,
    store,
    clock: systemClock,
    log,
    routes: options.routes ?? routes,
    ticketLimits: options.ticketLimits,
    // the sandbox's journals: the panel's own log, and made-up lines for the units it only plays
    systemExtras: { panelLog: log, madeUpLogsEveryMs: 3000, ...(options.panelCli ? { panelReload: panelReloadArgv(options.panelCli, config.file) } : {}) },
  });
  startMark('compose');
  return panel;
}

/** The server: config -> a built panel -> started -> the host brought in line with the records -> node edge. */
export async function start(options: StartOptions): Promise<RunningServer> {
  const { argv, env, cwd } = options;
  startMark('start');
  // the environment is checked before anything is made: a bad value is one line, and no sandbox is left behind
  const portFromEnv = portOverride(env.PORT);
  parseLogLevel(env.LOG_LEVEL);
  const explicit = argValue(argv, '--config') ?? env.RELAY_PANEL_CONFIG;
  const configPath = resolve(cwd, explicit ?? join(SANDBOX_DIR, 'config.json'));
  const isSandboxDefault = !explicit;
  if (!existsSync(configPath) && !isSandboxDefault) throw new Error(`Configuration file not found: ${configPath}`);
  const config = existsSync(configPath)
    ? await ConfigStore.open(configPath)
    : await ConfigStore.create(configPath, sandboxConfig(cwd));
  // Unset NODE_ENV is development, where every caller is admin: on a real host only when asked for.
  if (config.value.system.driver === 'host' && !env.NODE_ENV) throw new Error('NODE_ENV is unset (development mode: no client-certificate check) with system.driver host: set NODE_ENV=production, or NODE_ENV=development on purpose');
  // A sandbox made before the client existed gets it too.
  if (isSandboxDefault && !config.value.staticDir) await config.update({ staticDir: join(cwd, PANEL_BUILD_DIR) });
  startMark('config');

  const panel = await openPanel(config, { env, cwd, routes: options.routes, ticketLimits: options.ticketLimits, panelCli: options.panelCli });
  const { app, services } = panel;
  // A panel that cannot keep its audit log does not start: the operator fixes the directory (see docs/decisions.md).
  await services.audit.open().catch(async (error: unknown) => {
    await panel.close();
    throw error;
  });
  await panel.start();
  startMark('panel start');
  await reconcileAtStart(services);

  const server = createServer();
  // the sandbox answers its tunnels' and sites' names itself; on a real host nginx does
  const sandboxDispatch = sandboxWeb(services);
  const edge = attachNodeEdge(server, app, { before: sandboxDispatch });
  const port = portFromEnv ?? config.value.listen.port;
  const fd = takeListenFd(env);
  if (fd !== null) await listenOn(server, { fd });
  else if (options.listenPath) await listenOn(server, { path: options.listenPath });
  else await listen(server, config.value.listen.host, port, isSandboxDefault);
  const address = server.address();
  const boundPort = typeof address === 'object' && address ? address.port : port;
  if (sandboxDispatch) services.publicLinks.servedHere(boundPort);
  const host = config.value.listen.host.includes(':') ? `[${config.value.listen.host}]` : config.value.listen.host;
  const url = `http://${host}:${boundPort}`;
  startMark('listen');
  writeStartMarks();
  // the tunnels' vhosts the start took on their stamps' word, looked at after the first requests (or before the first vhost change)
  const { proxy } = services.system;
  const lookLater = () => void proxy.lookNow().catch((error: unknown) => services.log.warn(`looking at the tunnels' vhosts failed: ${errorMessage(error)}`));
  const lookTimer = setTimeout(lookLater, LOOK_AFTER_LISTEN_MS);

  let stopping: Promise<void> | undefined;
  const stop = () => {
    clearTimeout(lookTimer);
    return (stopping ??= shutdown(server, edge, app, proxy.dropLook()));
  };
  return { app, server, url, stop };
}

/**
 * How long after it listens the start looks at the tunnel vhosts it took on their stamps' word: after
 * its first requests, which would otherwise wait behind 1,000 stats (lib/host-state/reconcile.ts).
 */
const LOOK_AFTER_LISTEN_MS = 1000;

function listenOn(server: Server, options: ListenOptions | { fd: number }): Promise<void> {
  return new Promise<void>((ok, fail) => {
    server.once('error', fail);
    server.listen(options, () => {
      server.off('error', fail);
      ok();
    });
  });
}

/** The sandbox falls back to a free port when the configured one is taken on a shared machine. */
async function listen(server: Server, host: string, port: number, mayFallBack: boolean): Promise<void> {
  try {
    await listenOn(server, { port, host });
  } catch (error) {
    if (!mayFallBack || (error as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw error;
    await listen(server, host, 0, false);
  }
}

/** Stop accepting, let in-flight requests and the start's look (`look`, when it started) finish, close WebSockets, flush the store. */
async function shutdown(server: Server, edge: NodeEdge, app: App, look: Promise<unknown>): Promise<void> {
  const closed = new Promise<void>((done) => server.close(() => done()));
  const idle = setInterval(() => server.closeIdleConnections(), 50);
  const force = setTimeout(() => server.closeAllConnections(), 10_000);
  edge.closeSockets();
  await closed;
  // it logs its own failure; the store is flushed whatever came of it
  await look.catch(() => undefined);
  await app.close();
  clearInterval(idle);
  clearTimeout(force);
}
