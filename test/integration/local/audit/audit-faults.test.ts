// The audit log when its directory cannot be made: nothing freezes, the failure is logged and
// retried, and a server start stops with one line that names the directory.
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { start } from '../../../../lib/main.ts';

const s = suite('audit log faults');
const AUDIT_LOG = new URL('../../../../lib/audit/audit-log.ts', import.meta.url).href;
const REGISTER = new URL('../../../helpers/register.mjs', import.meta.url).href;

let dir = '';
s.before.each(async () => {
  dir = await mkdtemp(join(tmpdir(), 'audit-faults-'));
});
s.after.each(() => rm(dir, { recursive: true, force: true }));

// In a child process: a flush that spins on microtasks starves every timer of its own process,
// so only another process can notice it and stop it.
const FLUSH_AND_RETRY = `
const [url, auditDir] = process.argv.slice(1);
const { AuditLog } = await import(url);
const { rm } = await import('node:fs/promises');
const logged = [];
const log = new AuditLog({ dir: auditDir, clock: { now: () => 0, every: () => () => {} }, commitWindowMs: 0, retryMs: 30,
  log: { warn: (m) => logged.push('warn ' + m), info: (m) => logged.push('info ' + m) } });
log.record({ event: 'test', target: 'first' });
log.record({ event: 'test', target: 'second' });
await log.flush();
const flushed = 'flushed';
await rm(auditDir);
for (let i = 0; i < 1000 && !logged.some((m) => m.startsWith('info')); i++) await new Promise((r) => setTimeout(r, 10));
const entries = (await log.read({ limit: 10 })).map((e) => e.target);
await log.close();
console.log(JSON.stringify({ flushed, logged, entries }));
`;

/** The child's whole run (a start through the TypeScript hooks, then a retry): only a hang reaches it. */
const CHILD_TIMEOUT_MS = 30_000;

s('an audit directory that cannot be made: flush returns, the failure is logged once, the entries are written by the retry', async () => {
  const auditDir = join(dir, 'audit');
  await writeFile(auditDir, 'a regular file where the directory should be');
  const run = promisify(execFile)(process.execPath, ['--import', REGISTER, '--input-type=module', '-e', FLUSH_AND_RETRY, AUDIT_LOG, auditDir], { timeout: CHILD_TIMEOUT_MS });
  const { stdout } = await run.catch((error: { killed?: boolean; stderr?: string }) => {
    throw new Error(error.killed ? `flush never returned (killed after ${CHILD_TIMEOUT_MS / 1000} s)` : `the child failed: ${error.stderr}`);
  });
  const outcome = JSON.parse(stdout) as { flushed: string; logged: string[]; entries: string[] };
  assert.is(outcome.flushed, 'flushed');
  assert.is(outcome.logged.length, 2, outcome.logged.join('\n'));
  assert.match(outcome.logged[0]!, `warn audit log: cannot write (Audit log directory ${auditDir} cannot be used: EEXIST`);
  assert.is(outcome.logged[1], 'info audit log: writing again');
  assert.equal(outcome.entries, ['second', 'first']);
});

s('the server does not start with an unusable audit directory: one line that names it', async () => {
  await mkdir(join(dir, '.relay-sandbox', 'data'), { recursive: true });
  const auditDir = join(dir, '.relay-sandbox', 'data', 'audit');
  await writeFile(auditDir, '');
  const failure = await start({ argv: [], env: { NODE_ENV: 'development', LOG_LEVEL: 'error' }, cwd: dir }).then(
    async (running) => {
      await running.stop();
      return null;
    },
    (error: Error) => error,
  );
  assert.ok(failure, 'the start failed');
  assert.is(failure.message, `Audit log directory ${auditDir} cannot be used: EEXIST: file already exists, mkdir '${auditDir}'`);
});

s.run();
