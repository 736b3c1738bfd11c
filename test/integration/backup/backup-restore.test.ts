// In the integration half: it runs the real openssl CA (a backup carries its files) and packs real gzipped tar archives.
// Backup and restore on the sandbox host: a box with tunnels, a site with files, users, agents and
// ticket scopes is backed up, restored into an empty dir with another port, and answers the same
// lists; an agent certificate issued before the backup still gets 200 (sent as the identity
// headers nginx would set: these tests run without nginx). Corrupt and foreign archives are
// refused before anything is written.
import { existsSync } from 'node:fs';
import { appendFile, mkdtemp, readdir, readFile, rm, writeFile, mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { create, list } from 'tar';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { restore, writeBackup } from '../../../lib/backup-commands.ts';
import { ConfigStore } from '../../../lib/config.ts';
import { sandboxPaths } from '../../../lib/system/sandbox/paths.ts';
import { createTestApp, type TestApp } from '../../../lib/testing.ts';
import { userApp, newUser, withCheapHashing } from '../../unit/users/support.ts';
import { CHAT_SCOPE } from '../../unit/tickets/fixtures.ts';

const s = suite('backup and restore (sandbox)');
let source: TestApp;
let work: string;
let restored: TestApp | undefined;
s.before.each(async () => {
  source = await userApp({ durable: true, pki: 'openssl' });
  work = await mkdtemp(join(tmpdir(), 'relay-backup-test-'));
});
s.after.each(async () => {
  await source.close();
  await restored?.close();
  restored = undefined;
  await rm(work, { recursive: true, force: true });
});

const QUIET = { LOG_LEVEL: 'error' };
const LISTS = ['/api/tunnels', '/api/sites', '/api/users', '/api/certs/agent', '/api/tickets/scopes', '/api/invitations'];

async function seed(t: TestApp) {
  assert.is((await t.call('POST', '/api/tunnels', { body: { subdomain: 'app', port: 8080, description: 'my app' } })).status, 201);
  const site = await t.call('POST', '/api/sites', { body: { name: 'blog', type: 'managed' } });
  assert.is(site.status, 201, JSON.stringify(site.body));
  const dir = t.services.system.siteStorage.dirOf(site.body.site.id);
  await mkdir(join(dir, 'css'), { recursive: true });
  await writeFile(join(dir, 'index.html'), '<h1>blog</h1>');
  await writeFile(join(dir, 'css', 'site.css'), 'h1 { color: red }');
  assert.is((await t.call('POST', '/api/users', { body: newUser('dana') })).status, 201);
  const agent = await t.call('POST', '/api/certs/agent', { body: { label: 'laptop-1', capabilities: ['tunnels:read'], allowedSites: [] } });
  assert.is(agent.status, 201);
  assert.is((await t.call('POST', '/api/tickets/scopes', { body: CHAT_SCOPE })).status, 201);
  assert.is((await t.call('POST', '/api/invitations', { body: { username: 'erin', email: 'erin@example.test' } })).status, 201);
  return { siteId: site.body.site.id as string, serial: agent.body.serial as string };
}

/** An empty box: its own data dir and port, the sandbox host. */
async function targetConfig(port: number): Promise<{ dir: string; file: string }> {
  const dir = join(work, 'target');
  const file = join(dir, 'config.json');
  await ConfigStore.create(file, {
    ip: '127.0.0.1', domain: null, email: null, dataDir: join(dir, 'data'),
    onboarding: { status: 'FRESH' }, listen: { host: '127.0.0.1', port }, system: { driver: 'sandbox' },
  });
  return { dir, file };
}

async function entriesOf(file: string): Promise<string[]> {
  const names: string[] = [];
  await list({ file, onReadEntry: (e) => void names.push(e.path) });
  return names;
}

s('a restored box answers the same lists; the old agent certificate works; nothing is issued again', async () => {
  const { siteId, serial } = await seed(source);
  const fingerprint = async (t: TestApp) => (await t.call('GET', '/api/tunnels/agent-config')).body.fingerprint as string;
  const pinned = await fingerprint(source);
  const archive = join(work, 'box.tar.gz');
  await writeBackup(join(source.dir, 'config.json'), archive);
  const names = await entriesOf(archive);
  assert.is(names[0], 'manifest.json');
  assert.ok(names.includes('config.json'), names.slice(0, 12).join(' '));
  assert.ok(names.some((n) => n.startsWith('data/tunnels.')));
  assert.not.ok(names.some((n) => n.includes('sites-available')), 'the vhosts are rendered on restore, not restored');

  const target = await targetConfig(3999);
  const failures = await restore(target.file, archive, QUIET, work);
  assert.equal(failures, []);
  restored = withCheapHashing(await createTestApp({ dir: target.dir, pki: 'openssl' }));
  const config = restored.services.config.value;
  assert.is(config.listen.port, 3999, 'the target keeps its port');
  assert.is(config.dataDir, join(target.dir, 'data'), 'and its data dir');
  assert.is(config.domain, 'example.test');
  assert.is(config.onboarding.status, 'COMPLETED');

  // site records name the restored box's own sites root; file times come back as tar keeps them
  // (whole seconds, directories at unpacking), so a listing is compared without them
  const rebased = (body: unknown) => JSON.parse(JSON.stringify(body).replaceAll(source.services.store.dataDir, restored!.services.store.dataDir));
  const timeless = (body: unknown) => JSON.parse(JSON.stringify(body, (key, value) => (key === 'modifiedAt' ? undefined : value)));
  for (const path of [...LISTS, `/api/sites/${siteId}/files`]) {
    const before = await source.call('GET', path);
    const after = await restored.call('GET', path);
    assert.is(after.status, 200, path);
    assert.equal(timeless(after.body), timeless(rebased(before.body)), path);
  }
  const agentCall = await restored.call('GET', '/api/tunnels', { as: { agent: 'laptop-1', serial } });
  assert.is(agentCall.status, 200, 'the certificate issued before the backup');
  assert.is(await fingerprint(restored), pinned, 'the tunnel server\'s host key travels: pinned clients connect');

  for (const kind of ['app', 'site'] as const) {
    const vhosts = async (t: TestApp) => (await t.services.system.proxy.list(kind)).map((v) => [v.name, v.written, v.enabled]);
    const rendered = await vhosts(restored);
    assert.ok(rendered.length > 0, `${kind} vhosts rendered`);
    assert.equal(rendered, await vhosts(source), `${kind} vhosts`);
  }
  const pkiFiles = async (t: TestApp) => {
    const dir = join(t.services.store.dataDir, 'system', 'pki');
    const files = (await readdir(dir, { recursive: true })).sort();
    return Promise.all(files.map(async (f) => [f, await readFile(join(dir, f)).catch(() => 'dir').then(String)]));
  };
  assert.equal(await pkiFiles(restored), await pkiFiles(source), 'the CA, CRL and issued records are the backed-up ones');
});

s('restored into another sites root, a site is served and listed from there, not from the old path', async () => {
  const { siteId } = await seed(source);
  const archive = join(work, 'box.tar.gz');
  await writeBackup(join(source.dir, 'config.json'), archive);
  const sourceDir = source.services.system.siteStorage.dirOf(siteId);
  const target = await targetConfig(3997);
  assert.equal(await restore(target.file, archive, QUIET, work), []);
  // the old box is gone: nothing may still point into it
  await source.close();
  await rm(source.dir, { recursive: true, force: true });
  restored = withCheapHashing(await createTestApp({ dir: target.dir }));

  const targetDir = restored.services.system.siteStorage.dirOf(siteId);
  assert.is.not(targetDir, sourceDir);
  const [site] = (await restored.call('GET', '/api/sites')).body.sites;
  assert.is(site.rootPath, targetDir);
  const files = await restored.call('GET', `/api/sites/${siteId}/files`);
  assert.is(files.status, 200, JSON.stringify(files.body));
  assert.equal(files.body.files.map((f: { name: string }) => f.name), ['css', 'index.html']);
  const vhostDir = sandboxPaths(restored.services.store.dataDir).sitesAvailable;
  const vhost = (await Promise.all((await readdir(vhostDir)).filter((n) => n.includes('blog')).map((n) => readFile(join(vhostDir, n), 'utf8')))).join('');
  assert.ok(vhost.includes(targetDir), 'the vhost serves the restored directory');
  assert.not.ok(vhost.includes(sourceDir), 'and not the old one');
});

s('a journal that grows while the archive is packed is taken as it was when packing began', async () => {
  await seed(source);
  // a large journal, so tar reads it in many chunks while the appends go on
  const journal = join(source.dir, 'data', 'audit', 'audit.999.journal');
  const line = `${JSON.stringify({ time: new Date(0).toISOString(), actor: { role: 'system', label: null, serial: null }, event: 'filler', target: 'x'.repeat(200) })}\n`;
  await writeFile(journal, line.repeat(40_000), { mode: 0o600 });
  let growing = true;
  const appends = (async () => {
    while (growing) await appendFile(journal, line);
  })();
  const archive = join(work, 'live.tar.gz');
  try {
    await writeBackup(join(source.dir, 'config.json'), archive);
  } finally {
    growing = false;
    await appends;
  }
  const names = await entriesOf(archive);
  assert.ok(names.includes('data/audit/audit.999.journal'), names.join(','));
  assert.ok(names.some((n) => /^data\/tunnels\.\d+\.journal$/.test(n)), 'the collections\' journals are packed from their copies too');
});

s('GET /api/backup streams the same archive layout (admin only)', async () => {
  await seed(source);
  const response = await source.request('GET', '/api/backup');
  assert.is(response.status, 200);
  assert.is(response.headers.get('content-type'), 'application/gzip');
  assert.match(response.headers.get('content-disposition') ?? '', /attachment; filename="relay-panel-backup-.*\.tar\.gz"/);
  const file = join(work, 'api.tar.gz');
  await writeFile(file, Buffer.from(await response.arrayBuffer()));
  const names = await entriesOf(file);
  assert.is(names[0], 'manifest.json');
  assert.ok(names.includes('data/users.json') || names.some((n) => n.startsWith('data/system/authelia')), names.join(','));
  assert.is((await source.request('GET', '/api/backup', { as: { agent: 'laptop-1' } })).status, 403);
});

s('a corrupt or foreign archive is refused before anything is written', async () => {
  await seed(source);
  const good = join(work, 'box.tar.gz');
  await writeBackup(join(source.dir, 'config.json'), good);
  const bytes = await readFile(good);
  const truncated = join(work, 'truncated.tar.gz');
  await writeFile(truncated, bytes.subarray(0, Math.floor(bytes.length / 2)));
  const garbage = join(work, 'garbage.tar.gz');
  await writeFile(garbage, Buffer.from('not an archive at all'));
  // a foreign archive: a plain tar.gz of some directory, and one that names a path outside
  const foreignDir = join(work, 'foreign');
  await mkdir(join(foreignDir, 'data'), { recursive: true });
  await writeFile(join(foreignDir, 'data', 'x.json'), '[]');
  const foreign = join(work, 'foreign.tar.gz');
  await create({ file: foreign, gzip: true, cwd: foreignDir }, ['data']);
  const climbing = join(work, 'climbing.tar.gz');
  await writeFile(join(foreignDir, 'manifest.json'), JSON.stringify({ format: 'relay-panel-backup', version: 1, created: new Date().toISOString(), sections: ['data'] }));
  await create({ file: climbing, gzip: true, cwd: foreignDir, preservePaths: true, onWriteEntry: (e) => void (e.path === 'data/x.json' && (e.path = 'data/../../escape.json')) }, ['manifest.json', 'data']);

  const target = await targetConfig(3998);
  const configBefore = await readFile(target.file, 'utf8');
  for (const [archive, why] of [[truncated, /cannot be read/], [garbage, /cannot be read/], [foreign, /first entry/], [climbing, /unsafe entry path|config.json is missing/]] as const) {
    const error = await restore(target.file, archive, QUIET, work).then(() => null, (e: Error) => e);
    assert.ok(error, `${archive} was accepted`);
    assert.match(error!.message, why);
    assert.not.ok(existsSync(join(target.dir, 'data')), 'nothing was written');
    assert.is(await readFile(target.file, 'utf8'), configBefore);
    assert.equal((await readdir(target.dir)).sort(), ['config.json'], 'no scratch directory left');
  }
  assert.not.ok(existsSync(join(work, 'escape.json')));

  // a box that has state already is not overwritten
  await restore(target.file, good, QUIET, work);
  const again = await restore(target.file, good, QUIET, work).then(() => null, (e: Error) => e);
  assert.match(again?.message ?? '', /is not empty/);
});

s.run();
