// `rehearse <dir>`: the panel started on a throwaway sandbox in <dir>, as a box starts it (production
// mode), asked one request and stopped. Run through the launcher, which then writes its code cache
// into <dir> (lib/rehearsal-names.mjs): the bytecode of every function the start and a first answer
// ran. The startup snapshot's builder compiles the bundle with that cache (lib/snapshot-entry.ts), so
// those functions start compiled instead of being compiled again by every start from the blob.
// It listens on a Unix socket inside <dir>, which must be this user's alone: the installer runs it as
// root, and no other user may reach even a throwaway panel running as root.
import { request } from 'node:http';
import { lstatSync } from 'node:fs';
import { isAbsolute } from 'node:path';
import { start } from './main.ts';

const SOCKET = 'panel.sock';

/** A rehearsal that takes longer has hung: the builder goes on without its code cache. */
const REHEARSAL_LIMIT_MS = 30_000;

function answerOf(socketPath: string, path: string): Promise<number> {
  return new Promise((ok, fail) => {
    request({ socketPath, path, headers: { host: 'localhost' } }, (response) => {
      response.resume();
      response.on('end', () => ok(response.statusCode ?? 0));
    }).on('error', fail).end();
  });
}

/** Throws unless `dir` is an absolute path to a directory (not a link) of this user's that only it may enter. */
function checkedDir(dir: string | undefined): string {
  if (!dir || !isAbsolute(dir)) throw new Error('usage: rehearse <absolute path of an empty directory>');
  const stat = lstatSync(dir);
  const mine = stat.uid === (process.geteuid?.() ?? stat.uid);
  if (!stat.isDirectory() || !mine || (stat.mode & 0o077) !== 0) throw new Error(`${dir} must be a directory of this user's only it may enter (mode 0700)`);
  return dir;
}

export async function rehearse(dirArgument: string | undefined): Promise<void> {
  const dir = checkedDir(dirArgument);
  const limit = setTimeout(() => {
    console.error(`relay-panel rehearse: no answer within ${REHEARSAL_LIMIT_MS / 1000} s`);
    process.exit(1);
  }, REHEARSAL_LIMIT_MS).unref();
  // the socket's path relative to the directory: an absolute one inside a deep release directory
  // could pass the 107 bytes a Unix socket's path may have
  process.chdir(dir);
  // the environment a box's unit gives, not the caller's: no configuration, port or socket of theirs
  const running = await start({ argv: [], env: { NODE_ENV: 'production' }, cwd: dir, listenPath: SOCKET });
  try {
    const status = await answerOf(SOCKET, '/api/health');
    if (status !== 200) throw new Error(`GET /api/health answered ${status}`);
  } finally {
    await running.stop();
    clearTimeout(limit);
  }
}
