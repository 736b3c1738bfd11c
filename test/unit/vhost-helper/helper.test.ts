// The root helper in process: its request check, and apply against temp vhost directories with
// /bin/true playing nginx (the real nginx and sudo: test/integration/install/vhost-helper.test.ts).
import { chmod, lstat, mkdtemp, readdir, readFile, readlink, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { systemConfig, type SystemConfig } from '../../../lib/system/config.ts';
import { parseVhostRequest } from '../../../lib/system/nginx/vhost-request.ts';
import { applyVhostRequest } from '../../../lib/vhost-helper/apply.ts';
import { runVhostHelper } from '../../../lib/vhost-helper/main.ts';

const SITES = '/var/www/relay-sites';
const SITE_ID = '0b5e3f4a-1c2d-4e5f-8a9b-0c1d2e3f4a5b';
const site = (over: Record<string, unknown> = {}) => ({ kind: 'site', fqdn: 'docs.example.com', root: `${SITES}/${SITE_ID}`, spaMode: true, protected: false, ...over });
const request = (...changes: unknown[]) => JSON.stringify({ changes });
const refusal = (text: string) => {
  try {
    parseVhostRequest(text, SITES);
  } catch (e) {
    return (e as Error).message;
  }
  return null;
};

const s = suite<{ dir: string; config: SystemConfig }>('root vhost helper', { dir: '', config: systemConfig() });

s.before.each(async (ctx) => {
  ctx.dir = await mkdtemp(join(tmpdir(), 'relay-vhost-helper-'));
  ctx.config = systemConfig({
    driver: 'host',
    binaries: { nginx: '/bin/true' },
    nginx: { sitesAvailable: join(ctx.dir, 'available'), sitesEnabled: join(ctx.dir, 'enabled'), errorLog: join(ctx.dir, 'error.log'), reloadCheckMs: 0 },
    sites: { root: SITES },
  });
});
s.after.each(async (ctx) => rm(ctx.dir, { recursive: true, force: true }));

s('a well-formed request passes as the changes it names', () => {
  const changes = parseVhostRequest(request({ op: 'put', spec: site(), enabled: true }, { op: 'remove', name: 'relay-app-a.example.com.conf' }), SITES);
  assert.equal(changes, [{ op: 'put', spec: site(), enabled: true }, { op: 'remove', name: 'relay-app-a.example.com.conf' }]);
});

s('bad domain, port, root, extra field, traversal name, wrong action: refused with where and why', () => {
  const cases: Array<[unknown, RegExp]> = [
    [{ op: 'put', spec: site({ fqdn: 'Docs.example.com;' }), enabled: true }, /changes\.0\.spec\.fqdn: must be a lowercase domain name/],
    [{ op: 'put', spec: { kind: 'app', fqdn: 'a.example.com', port: 70000 }, enabled: true }, /changes\.0\.spec\.port/],
    [{ op: 'put', spec: site({ root: '/etc' }), enabled: true }, /changes\.0\.spec\.root: must be a site directory \/var\/www\/relay-sites\/<site id>/],
    [{ op: 'put', spec: site({ root: `${SITES}/${SITE_ID}/../../../etc` }), enabled: true }, /spec\.root: must be a site directory/],
    [{ op: 'put', spec: site({ accessLog: '/etc/shadow' }), enabled: true }, /changes\.0\.spec: Unrecognized key: "accessLog"/],
    [{ op: 'put', spec: { kind: 'ip-panel' }, enabled: true, include: '/tmp/x.conf' }, /Unrecognized key: "include"/],
    [{ op: 'remove', name: '../../etc/nginx/nginx.conf' }, /changes\.0\.name: must be a relay-panel vhost file name/],
    [{ op: 'remove', name: 'default' }, /must be a relay-panel vhost file name/],
    [{ op: 'put', spec: { kind: 'module', fqdn: 'a.example.com' }, enabled: true }, /changes\.0\.spec\.kind/],
    [{ op: 'chmod', name: 'relay-ip-panel.conf' }, /changes\.0\.op/],
  ];
  for (const [change, message] of cases) assert.match(String(refusal(request(change))), message, JSON.stringify(change));
  assert.match(String(refusal('{"changes": []}')), /changes: .*>=1/);
  assert.match(String(refusal('{"changes": [{"op": "disable", "name": "relay-ip-panel.conf"}], "nginx": "/tmp"}')), /Unrecognized key: "nginx"/);
  assert.is(refusal('not json'), 'Invalid vhost request: not a JSON document');
});

s('apply writes the rendered vhost and its link, from the helper configuration; remove deletes both', async ({ config }) => {
  await applyVhostRequest(config, { exact: [], prefix: [] }, request({ op: 'put', spec: site(), enabled: true }));
  const file = join(config.nginx.sitesAvailable, 'relay-site-docs.example.com.conf');
  const text = await readFile(file, 'utf8');
  assert.match(text, `root "${SITES}/${SITE_ID}";`);
  assert.match(text, 'ssl_certificate "/etc/letsencrypt/live/docs.example.com/fullchain.pem";');
  assert.is((await lstat(file)).mode & 0o777, 0o644);
  assert.is(await readlink(join(config.nginx.sitesEnabled, 'relay-site-docs.example.com.conf')), file);
  await applyVhostRequest(config, { exact: [], prefix: [] }, request({ op: 'remove', name: 'relay-site-docs.example.com.conf' }));
  assert.equal(await readdir(config.nginx.sitesAvailable), []);
  assert.equal(await readdir(config.nginx.sitesEnabled), []);
});

s('a refused request writes nothing, even when its first change is good', async ({ config }) => {
  const bad = request({ op: 'put', spec: site(), enabled: true }, { op: 'put', spec: site({ fqdn: 'x.example.com', root: '/' }), enabled: true });
  await applyVhostRequest(config, { exact: [], prefix: [] }, bad).then(() => assert.unreachable('applied'), (e: Error) => assert.match(e.message, /changes\.1\.spec\.root/));
  assert.equal(await readdir(config.nginx.sitesAvailable).catch(() => []), []);
});

s('the command: usage errors exit 2; a request is read from stdin; refusals exit 1 with one line', async ({ dir, config }) => {
  const file = join(dir, 'helper.json');
  await writeFile(file, JSON.stringify(config));
  const input = (text: string) => Readable.from([Buffer.from(text)]);
  const none = { exact: [], prefix: [] };
  let said = '';
  const run = (argv: string[], text: string) => {
    said = '';
    return runVhostHelper(argv, input(text), none, { write: (chunk: string) => Boolean((said += chunk)) });
  };
  assert.is(await run(['--helper-config', file, 'write'], ''), 2);
  assert.match(said, 'relay-panel vhosts: one action: apply');
  assert.is(await run(['apply'], ''), 2);
  assert.is(await run(['--helper-config', file, 'apply'], request({ op: 'remove', name: '../x' })), 1);
  assert.is(said, 'Invalid vhost request: changes.0.name: must be a relay-panel vhost file name\n');
  assert.is(await run(['--helper-config', file, 'apply'], request({ op: 'put', spec: { kind: 'app', fqdn: 'a.example.com', port: 8080 }, enabled: false })), 0);
  assert.is(said, '');
  assert.ok((await readFile(join(config.nginx.sitesAvailable, 'relay-app-a.example.com.conf'), 'utf8')).includes('proxy_pass http://127.0.0.1:8080;'));
  if (process.geteuid?.() === 0) {
    // as root, a configuration others may write is refused: it steers what root writes
    await chmod(file, 0o666);
    assert.is(await run(['--helper-config', file, 'apply'], request({ op: 'remove', name: 'relay-app-a.example.com.conf' })), 1);
    assert.match(said, `vhost helper configuration refused: ${file} is writable by someone other than root`);
    assert.ok(await lstat(join(config.nginx.sitesAvailable, 'relay-app-a.example.com.conf')));
  }
});

s.run();
