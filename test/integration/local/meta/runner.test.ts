import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { withTimeout } from '../../../helpers/timeout.ts';

const t = suite('test helpers');

t('withTimeout rejects a promise that never settles', async () => {
  const never = new Promise<void>(() => {});
  let message = '';
  try { await withTimeout('never', 20, () => never); } catch (e) { message = (e as Error).message; }
  assert.match(message, 'timed out after 20 ms');
});

t('withTimeout passes the value through', async () => {
  assert.is(await withTimeout('quick', 1000, async () => 42), 42);
});

t.run();

// test/run.mjs on the fixtures in test/fixtures/runner (not *.test.ts, so no group picks them up)
const runnerPath = fileURLToPath(new URL('../../../run.mjs', import.meta.url));

/** The runner's exit code (a signal name when it was killed at the time limit) and its stdout. */
function runner(...args: string[]): Promise<{ code: number | string | null; stdout: string }> {
  return runnerWith({}, ...args);
}

/** The runner with `env` over this process's environment. */
function runnerWith(env: NodeJS.ProcessEnv, ...args: string[]): Promise<{ code: number | string | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [runnerPath, ...args], { timeout: 20_000, env: { ...process.env, ...env } }, (error, stdout, stderr) =>
      resolve({ code: error ? (error.code ?? error.signal ?? null) : 0, stdout, stderr }),
    );
  });
}

const fixture = (name: string) => `fixtures/runner/${name}.ts`;
const closing = (stdout: string) => stdout.trim().split('\n').slice(-2);

/** Each file's block, from its header line to the next header: output printed per file, never interleaved. */
function blocks(stdout: string, files: string[]): Map<string, string> {
  const found = new Map<string, string>();
  const body = stdout.slice(0, stdout.search(/\n+(\d+ file\(s\) did not finish|\d+ files in )/));
  const headers = [...body.matchAll(/^(fixtures\/runner\/[\w-]+\.ts)$/gm)];
  headers.forEach((match, i) => found.set(match[1]!, body.slice(match.index, headers[i + 1]?.index ?? body.length)));
  assert.equal([...found.keys()].sort(), [...files].sort(), stdout);
  return found;
}

const p = suite('test runner: parallel workers');

p('two workers: counts from each, every file\'s output in one block; a worker that dies and one whose suite never settles are named and failed, and new workers run the rest', async () => {
  // the two larger files start first (largest first), so both first workers end early
  const files = [fixture('dies'), fixture('never-settles'), fixture('passes'), fixture('fails')];
  const { code, stdout } = await runner('--jobs', '2', ...files);
  assert.is(code, 1, stdout);
  const output = blocks(stdout, files);
  assert.match(output.get(fixture('passes'))!, /^fixtures\/runner\/passes\.ts\n passes {2}• • {3}\(2 \/ 2\)\n*$/);
  assert.match(output.get(fixture('fails'))!, 'FAIL  fails  "fails on purpose"');
  assert.not.match(output.get(fixture('fails'))!, ' passes ');
  assert.match(output.get(fixture('dies'))!, 'fixtures/runner/dies.ts: the worker ended before every suite finished (signal SIGKILL;');
  assert.match(output.get(fixture('never-settles'))!, 'fixtures/runner/never-settles.ts: the worker ended before every suite finished (exit code 0;');
  assert.match(stdout, /2 file\(s\) did not finish, each counted as one failure: fixtures\/runner\/(dies|never-settles)\.ts, fixtures\/runner\/(dies|never-settles)\.ts\n/);
  assert.equal(closing(stdout), ['4 files in ' + /(\d+\.\d)s\n/.exec(stdout)![1] + 's', '3 passed, 3 failed, 0 skipped']);
});

p('a run where everything passes exits 0; a warning shows in the block of the file that caused it', async () => {
  const files = [fixture('passes'), fixture('warns')];
  const { code, stdout } = await runner('--jobs', '2', ...files);
  assert.is(code, 0, stdout);
  assert.equal(closing(stdout)[1], '3 passed, 0 failed, 0 skipped');
  assert.match(blocks(stdout, files).get(fixture('warns'))!, /\(node:\d+\) \[FIXTURE1\] Warning: fixture warning\n/);
});

const exitIn = (script: string) => ({ FIXTURE_EXIT_IN: script, NODE_OPTIONS: `--import=${fileURLToPath(new URL('../../../fixtures/runner/exit-in.mjs', import.meta.url))}` });

p('workers that die before taking a file: every file that never ran is a failure, not a silent pass', async () => {
  const files = [fixture('passes'), fixture('fails')];
  const { code, stdout } = await runnerWith(exitIn('run-worker.mjs'), '--jobs', '2', ...files);
  assert.is(code, 1, stdout);
  assert.match(stdout, /2 file\(s\) did not finish, each counted as one failure: fixtures\/runner\/(passes|fails)\.ts, fixtures\/runner\/(passes|fails)\.ts\n/);
  assert.equal(closing(stdout)[1], '0 passed, 2 failed, 0 skipped');
});

p('--typecheck: a type check that fails fails the run, named, beside passing files', async () => {
  const { code, stdout } = await runnerWith(exitIn('typecheck.mjs'), '--typecheck', '--jobs', '2', fixture('passes'));
  assert.is(code, 1, stdout);
  assert.match(stdout, 'typecheck (build/typecheck.mjs) FAILED (exit code 3)');
  assert.equal(closing(stdout)[1], '2 passed, 1 failed, 0 skipped');
});

p('a suite whose before hook throws: its tests count as failed and the run says where', async () => {
  const { code, stdout } = await runner('--jobs', '2', fixture('before-throws'));
  assert.is(code, 1, stdout);
  assert.match(stdout, "2 test(s) did not run: the suite's before hook threw");
  assert.match(stdout, 'before hook threw: Error: fixture: the before hook fails', 'the hook\'s own error, which uvu drops');
  assert.equal(closing(stdout)[1], '0 passed, 2 failed, 0 skipped');
});

p('a worker whose test left a server listening still ends after its last file (the run would wait for ever)', async () => {
  const { code, stdout, stderr } = await runnerWith({}, '--jobs', '2', fixture('leaks-server'), fixture('passes'));
  assert.is(code, 0, stdout);
  assert.equal(closing(stdout)[1], '3 passed, 0 failed, 0 skipped');
  assert.match(stderr, `opened by ${fixture('leaks-server')} (TCPServerWrap ×1)`, 'names the file that left it');
});

p('--jobs 1 runs in one process, and still fails a run whose promise never settled', async () => {
  const { code, stdout } = await runner('--jobs', '1', fixture('passes'), fixture('never-settles'));
  assert.is(code, 1, stdout);
  assert.not.match(stdout, 'passed,');
  const serial = await runner('--jobs=1', fixture('passes'), fixture('fails'));
  assert.equal(closing(serial.stdout)[1], '3 passed, 1 failed, 0 skipped');
  assert.ok(serial.stdout.indexOf('fixtures/runner/passes.ts') < serial.stdout.indexOf('fixtures/runner/fails.ts'), 'in the order given');
});

p('--jobs must be a whole number of at least 1', async () => {
  const { code, stdout } = await runner('--jobs', '0', fixture('passes'));
  assert.is(code, 1);
  assert.is(stdout, '');
});

p.run();
