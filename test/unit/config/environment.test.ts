// LOG_LEVEL and PORT as an operator writes them: any case and the usual aliases work, a value that
// cannot work stops the start with one line before anything is made.
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ConfigStore } from '../../../lib/config.ts';
import { openPanel, start } from '../../../lib/main.ts';

const s = suite('LOG_LEVEL and PORT');
let dir = '';
s.before.each(async () => {
  dir = await mkdtemp(join(tmpdir(), 'relay-env-'));
});
s.after.each(() => rm(dir, { recursive: true, force: true }));

/** What the panel's logger writes to stderr with this LOG_LEVEL, after one line of each level. */
async function linesWritten(level: string): Promise<string[]> {
  const config = await ConfigStore.inMemory({ ip: '203.0.113.10', domain: null, email: null, dataDir: join(dir, 'data'), onboarding: { status: 'FRESH' }, system: { driver: 'sandbox' } });
  const written: string[] = [];
  const original = process.stderr.write;
  process.stderr.write = ((chunk: string) => written.push(String(chunk)) > 0) as typeof process.stderr.write;
  const { services } = await openPanel(config, { env: { LOG_LEVEL: level }, cwd: dir }).catch((error: unknown) => {
    process.stderr.write = original;
    throw error;
  });
  try {
    for (const name of ['debug', 'info', 'warn', 'error'] as const) services.log[name](`probe-${name}`);
  } finally {
    process.stderr.write = original;
    await services.close();
  }
  return written.flatMap((line) => / (\w+) probe-/.exec(line)?.[1] ?? []);
}

s('LOG_LEVEL in any case, and the aliases warning and err, set the threshold', async () => {
  assert.equal(await linesWritten('INFO'), ['INFO', 'WARN', 'ERROR']);
  assert.equal(await linesWritten('warning'), ['WARN', 'ERROR']);
  assert.equal(await linesWritten('Err'), ['ERROR']);
  assert.equal(await linesWritten('DEBUG'), ['DEBUG', 'INFO', 'WARN', 'ERROR']);
});

/** The start's failure, or null after stopping a server that started. */
async function startFailure(env: NodeJS.ProcessEnv): Promise<string | null> {
  return start({ argv: [], env: { NODE_ENV: 'development', ...env }, cwd: dir }).then(
    async (running) => {
      await running.stop();
      return null;
    },
    (error: Error) => error.message,
  );
}

s('an unknown LOG_LEVEL stops the start with one line, before the sandbox is made', async () => {
  assert.is(await startFailure({ LOG_LEVEL: 'loud' }), "LOG_LEVEL must be one of debug, info, warn (or warning), error (err); not 'loud'");
  assert.equal(await readdir(dir), []);
});

s('PORT outside 0 to 65535 stops the start with one line, before the sandbox is made', async () => {
  for (const port of ['70000', '65536', '-1', '80a', '99999']) {
    assert.is(await startFailure({ PORT: port }), `PORT must be a port number from 0 to 65535, not '${port}'`, port);
  }
  assert.equal(await readdir(dir), []);
});

s.run();
