// lib/system/common/exec.ts running real programs: what a failure says (a missing binary, a timeout, what
// the program printed), and only absolute paths with string arguments, never a shell (the rest of
// the system helpers: test/unit/system/common.test.ts).
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { failureOutput, programFailure, run, spawnStreaming } from '../../../../lib/system/common/exec.ts';
import { nginxDiagnosis } from '../../../../lib/system/proxy/vhost-store.ts';
import { SystemError } from '../../../../lib/system/index.ts';
import { rejection } from '../../../helpers/rejection.ts';
import { timed } from '../../../helpers/timeout.ts';

const s = suite('system helpers: real programs (exec)');

const systemRejection = (p: Promise<unknown>) => rejection(p, SystemError);

s('programFailure keeps the message when the program printed nothing (missing binary, timeout)', timed(5000, async () => {
  const missing = await systemRejection(run('/nonexistent/nginx', ['-t'], { timeoutMs: 1000 }));
  assert.is(missing.stderr, '', 'run always sets stderr');
  assert.is(failureOutput(missing), 'nginx is not installed (/nonexistent/nginx)');
  const wrapped = programFailure(missing, 'nginx', 'nginx configuration test failed', nginxDiagnosis);
  assert.is(wrapped.message, 'nginx configuration test failed: nginx is not installed (/nonexistent/nginx)');
  assert.is(wrapped.code, 'ENOENT');

  const slow = await systemRejection(run('/bin/sleep', ['5'], { timeoutMs: 100 }));
  assert.is(slow.code, 'timeout');
  assert.is(programFailure(slow, 'sleep', 'could not wait', (t) => t).message, 'could not wait: sleep timed out after 100 ms');

  // what the program said wins over the generic message: stdout and stderr (certbot explains on stdout)
  const said = await systemRejection(run('/bin/sh', ['-c', 'echo "Detail: no such host"; echo "nginx: [emerg] bad directive" >&2; exit 1'], { timeoutMs: 2000 }));
  assert.is(failureOutput(said), 'Detail: no such host\n\nnginx: [emerg] bad directive\n');
  assert.is(programFailure(said, 'nginx', 'test', nginxDiagnosis).message, 'test: [emerg] bad directive');
  assert.is(programFailure(said, 'nginx', 'test', nginxDiagnosis).stderr, 'nginx: [emerg] bad directive\n');
  const onlyStdout = await systemRejection(run('/bin/sh', ['-c', 'echo explained on stdout; exit 2'], { timeoutMs: 2000 }));
  assert.is(failureOutput(onlyStdout), 'explained on stdout\n');
}));

s('programs run only from absolute paths with string arguments, one-shot or streaming', timed(5000, async () => {
  assert.is((await systemRejection(run('journalctl', [], { timeoutMs: 1000 }))).message, 'journalctl: binary path must be absolute');
  assert.throws(() => spawnStreaming('journalctl', ['-f']), /journalctl: binary path must be absolute/);
  assert.throws(() => spawnStreaming('/usr/bin/journalctl', ['-u', 'a\0b']), /journalctl: invalid argument/);
  const child = spawnStreaming('/bin/echo', ['-n', 'a b; $(id)']);
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d));
  await new Promise((ok) => child.on('close', ok));
  assert.is(out, 'a b; $(id)', 'no shell between us and the program');
}));

s.run();
