// The enrollment command the certificates page gives (panel/src/enroll-command.ts), run as text by
// a real sh with the real openssl, curl and jq against the panel's app on a free port (run
// twice, the old command replaced agent.key and left agent.crt empty).
import { execFile } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { enrollCommand } from '../../../../panel/src/enroll-command.ts';
import { createTestApp, type TestApp } from '../../../../lib/testing.ts';
import { makeCsr } from '../../../helpers/csr.ts';
import { serve } from '../../../helpers/http-server.ts';

const s = suite('the enrollment command of the certificates page, run twice by sh (openssl CA)');
let t: TestApp;
let server: Awaited<ReturnType<typeof serve>>;
let dirs: string[] = [];

s.before(async () => {
  t = await createTestApp({ pki: 'openssl' });
  await t.completeOnboarding();
  server = await serve(t.app);
});
s.after(async () => {
  await server.close();
  await t.close();
});
s.after.each(async () => {
  await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
  dirs = [];
});

async function newToken(label: string): Promise<string> {
  const r = await t.call('POST', '/api/certs/agent/enroll', { body: { label, capabilities: ['tunnels:read'] } });
  assert.is(r.status, 201, JSON.stringify(r.body));
  return r.body.token;
}

async function emptyDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'relay-enroll-cmd-'));
  dirs.push(dir);
  return dir;
}

/** The page's command text, given whole to `sh -c` as a pasted line would be. */
function run(dir: string, panel: string, token: string): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((done) => {
    execFile('sh', ['-c', enrollCommand(panel, token)], { cwd: dir, timeout: 20_000 }, (error, stdout, stderr) => {
      done({ code: error ? (typeof error.code === 'number' ? error.code : -1) : 0, stdout, stderr });
    });
  });
}

const openssl = (args: string[]) => new Promise<string>((ok, ko) => execFile('openssl', args, (e, out) => (e ? ko(e) : ok(out))));
const snapshot = async (dir: string) => Object.fromEntries(await Promise.all((await readdir(dir)).sort().map(async (f) => [f, await readFile(join(dir, f), 'utf8')])));

s('run twice: the first run enrolls with a 0600 key and its certificate; the second changes nothing, asks nothing and exits 0', async () => {
  const dir = await emptyDir();
  const first = await run(dir, server.url, await newToken('nas-1'));
  assert.is(first.code, 0, first.stderr);
  assert.equal(await readdir(dir).then((f) => f.sort()), ['agent.crt', 'agent.key'], 'no temporary file is left');
  for (const f of ['agent.key', 'agent.crt']) assert.is((await stat(join(dir, f))).mode & 0o777, 0o600, f);
  const enrolled = await snapshot(dir);
  assert.match(await openssl(['x509', '-in', join(dir, 'agent.crt'), '-noout', '-subject']), 'CN = agent:nas-1');
  assert.is(await openssl(['x509', '-in', join(dir, 'agent.crt'), '-noout', '-pubkey']), await openssl(['pkey', '-in', join(dir, 'agent.key'), '-pubout']));

  // A second, unspent token shows the second run never reached the panel.
  const unspent = await newToken('nas-2');
  const second = await run(dir, server.url, unspent);
  assert.is(second.code, 0, second.stderr);
  assert.match(second.stdout, 'already here and belong together');
  assert.equal(await snapshot(dir), enrolled, 'key and certificate byte-identical');
  assert.is((await run(await emptyDir(), server.url, unspent)).code, 0, 'the token of the second run is still good');
});

s('a refused answer (a spent token: 401) exits 1 with the panel error and leaves nothing', async () => {
  const token = await newToken('nas-3');
  assert.is((await run(await emptyDir(), server.url, token)).code, 0);
  const dir = await emptyDir();
  const again = await run(dir, server.url, token);
  assert.is(again.code, 1);
  assert.match(again.stderr, 'enroll: the panel refused the enrollment (HTTP 401): Invalid enrollment token');
  assert.equal(await readdir(dir), []);
  const down = await run(dir, 'http://127.0.0.1:1', token);
  assert.is(down.code, 1);
  assert.match(down.stderr, 'enroll: could not reach http://127.0.0.1:1');
  assert.equal(await readdir(dir), []);
});

s('files that are not a key and its certificate (the old command run twice: a key, an empty agent.crt) are refused and kept byte for byte', async () => {
  const dir = await emptyDir();
  await writeFile(join(dir, 'agent.key'), makeCsr().key, { mode: 0o600 });
  await writeFile(join(dir, 'agent.crt'), '');
  const before = await snapshot(dir);
  const token = await newToken('nas-4');
  const r = await run(dir, server.url, token);
  assert.is(r.code, 1);
  assert.match(r.stderr, 'enroll: agent.key or agent.crt is already here but they are not a key and its certificate; nothing was changed');
  assert.equal(await snapshot(dir), before);
  assert.is((await run(await emptyDir(), server.url, token)).code, 0, 'the token was not spent');
});

s('a certificate that is not for the new key is refused and leaves nothing', async () => {
  // A real certificate of the panel CA, for another key: what a wrong or tampered answer gives.
  const other = await t.call('POST', '/api/enroll', { as: 'none', body: { token: await newToken('nas-5'), csr: makeCsr().csr } });
  assert.is(other.status, 200, JSON.stringify(other.body));
  const liar = createServer((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(other.body)));
  await new Promise<void>((ok) => liar.listen(0, '127.0.0.1', ok));
  try {
    const dir = await emptyDir();
    const r = await run(dir, `http://127.0.0.1:${(liar.address() as AddressInfo).port}`, 'any');
    assert.is(r.code, 1);
    assert.match(r.stderr, 'enroll: the certificate the panel sent is not for this key: refused, nothing was written');
    assert.equal(await readdir(dir), []);
  } finally {
    await new Promise((ok) => liar.close(ok));
  }
});

s.run();
