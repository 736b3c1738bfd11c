import { BACKUP_USAGE, isBackupCommand } from './backup/commands.ts';
import { isCommand, PANEL_TASK_COMMAND } from './install/commands.ts';
import { USAGE } from './install/options.ts';
import { start } from './main.ts';
import { firstAnswerOrIdle } from './node/first-answer.ts';
import { publicLocations } from './http/public-locations.ts';
import { compileRouteList } from './http/router.ts';
import { firstSegments } from './http/mounts.ts';
import { routes } from '../handlers/start-table.ts';
import { startBanner } from './start-banner.ts';
import { isRootHelperCommand } from './root-helper/command.ts';
import { startupSnapshot } from 'node:v8';
import { REHEARSE_COMMAND } from './rehearsal-names.mjs';
import { NGINX_RELOAD_COMMAND } from './nginx-reload-names.ts';
import { codeIdentity } from './code-identity.ts';
import { resolve } from 'node:path';
import { fingerprintRecordSchemas } from './state/store.ts';

// Entry point of the bundle: `node dist/server.mjs [--config <file>]`, or an operator command
// (`install`, `upgrade`, `uninstall`, `doctor`: lib/install; `backup`, `restore`: lib/backup-commands.ts),
// or the root helper (`root-helper`, `root-call`: lib/root-helper), or `panel-task`, what the
// installer has the panel's user do in the panel's directories (lib/install/panel-task), or
// `rehearse`, the start whose code cache the startup snapshot's builder takes (lib/rehearsal.ts), or
// `nginx-reload`, certbot's deploy hook on a box without a root helper (lib/nginx-reload-command.ts).
// No top-level await: the bundle runs as CommonJS under the code-cache launcher (lib/launcher.ts).
// The commands' code is imported when one is run: the server's start does not load it (cold start).
/** A start that gets no request writes its code cache this long after it listens (RELAY_PANEL_CODE_CACHE_IDLE_MS says otherwise). */
const CODE_CACHE_IDLE_MS = 3000;

/** Read when main() runs, never as the bundle evaluates (a startup snapshot would keep the builder's). */
function codeCacheIdleMs(): number {
  const ms = Number(process.env.RELAY_PANEL_CODE_CACHE_IDLE_MS);
  return process.env.RELAY_PANEL_CODE_CACHE_IDLE_MS && Number.isInteger(ms) && ms >= 0 ? ms : CODE_CACHE_IDLE_MS;
}

export async function main(): Promise<void> {
  const [command, ...rest] = process.argv.slice(2);
  if (isCommand(command)) {
    const { runCommand } = await import('./install/main.ts');
    process.exit(await runCommand(command, rest, process.argv[1]!, publicLocations(routes)));
  }
  if (isRootHelperCommand(command)) {
    const { runRootHelper } = await import('./root-helper/main.ts');
    process.exit(await runRootHelper(command!, rest, publicLocations(routes)));
  }
  if (command === PANEL_TASK_COMMAND) {
    const { runPanelTaskCommand } = await import('./install/panel-task/main.ts');
    process.exit(await runPanelTaskCommand());
  }
  if (isBackupCommand(command)) {
    const { runBackupCommand } = await import('./backup-commands.ts');
    process.exit(await runBackupCommand(command, rest, process.env, process.cwd()));
  }
  if (command === NGINX_RELOAD_COMMAND) {
    const { runNginxReload } = await import('./nginx-reload-command.ts');
    process.exit(await runNginxReload(rest));
  }
  if (command === REHEARSE_COMMAND) {
    const { rehearse } = await import('./rehearsal.ts');
    await rehearse(rest[0]).catch((error: unknown) => {
      console.error(`relay-panel rehearse: ${error instanceof Error ? error.message : String(error)}`);
      process.exit(1);
    });
    // main() settles on return, and the launcher writes its code cache in that promise's reaction,
    // which runs before this turn of the event loop
    setImmediate(() => process.exit(0));
    return;
  }
  if (command === 'help' || command === '--help' || command === '-h') {
    console.log(`${USAGE}\n${BACKUP_USAGE}`);
    process.exit(0);
  }
  try {
    // the bundle's own command line, for certbot's deploy hook (none from the TypeScript sources)
    const panelCli = codeIdentity && process.argv[1] ? [process.execPath, resolve(process.argv[1])] : undefined;
    const options = { argv: process.argv.slice(2), env: process.env, cwd: process.cwd(), panelCli };
    // read before start() takes the variables: a socket systemd passed cannot be listened on twice
    const socketActivated = process.env.LISTEN_PID === String(process.pid);
    let running = await start(options);
    // A restore uploaded to the panel (POST /api/backup/restore) runs between a stop and a start:
    // the old state is flushed and closed first, then replaced, then read afresh. Under systemd's
    // socket the process exits instead, and the unit (Restart=always) starts it again.
    const acceptRestores = () => running.app.services.restoreRequests.listen((archive) => void (async () => {
      const configFile = running.app.services.config.file;
      await running.stop();
      const { restoreBetweenRuns } = await import('./restore-between-runs.ts');
      await restoreBetweenRuns(configFile, archive, process.env, process.cwd());
      if (socketActivated) process.exit(0);
      running = await start(options);
      acceptRestores();
      console.log(`relay-panel listening again on ${running.url}`);
    })().catch((error: unknown) => {
      console.error(`relay-panel: restart after a restore: ${error instanceof Error ? error.message : String(error)}`);
      process.exit(1);
    }), socketActivated ? 'The panel restarts under systemd with the restored state.' : 'The panel restarts in its process with the restored state.');
    acceptRestores();
    let signals = 0;
    const onSignal = (signal: string) => {
      if (signals++ > 0) process.exit(1);
      console.log(`${signal}: shutting down`);
      running.stop().then(
        () => process.exit(0),
        (error: unknown) => {
          // one line an operator reads in the journal (a snapshot the full disk refused, say)
          console.error(`relay-panel: shutdown: ${error instanceof Error ? error.message : String(error)}`);
          process.exit(1);
        },
      );
    };
    // Before the line that says it listens: a supervisor may stop the panel the moment it reads it.
    process.on('SIGTERM', onSignal);
    process.on('SIGINT', onSignal);
    const mode = running.app.services.mode;
    const config = running.app.services.config;
    console.log(startBanner({ url: running.url, mode, driver: config.value.system.driver, configFile: config.file }).join('\n'));
    await firstAnswerOrIdle(running.server, codeCacheIdleMs());
  } catch (error) {
    console.error(`relay-panel: ${(error as Error).message}`);
    process.exit(1);
  }
}

// While a startup snapshot is built: what depends on the route table alone (its order, the compiled
// patterns, its first segments) is worked out into the blob: cold, the sort alone cost a start from
// it about 8 ms of CPU (compose, 22.5 against 14.6 ms, medians of 9 interleaved starts). So are the
// record schemas' fingerprints, which a start compares with the store's checked snapshots.
if (startupSnapshot.isBuildingSnapshot()) {
  compileRouteList(routes);
  firstSegments(routes);
  fingerprintRecordSchemas();
}

/**
 * Settles once the server has answered its first request, or the idle time after it listens
 * without one: the launcher then writes its code cache. Operator commands exit first. While a startup
 * snapshot of the bundle is built (lib/snapshot-entry.ts) nothing runs: a start from it calls main().
 */
export const warmed = startupSnapshot.isBuildingSnapshot() ? undefined : main();
