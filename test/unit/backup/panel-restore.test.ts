// Restore from a backup file in the panel. POST /api/backup/inspect answers what an archive
// holds after the restore command's checks; POST /api/backup/restore hands a checked archive to the
// process, which (lib/cli.ts, played here by the listener) stops the panel and replaces its state;
// a corrupted or foreign archive is 400 with nothing changed; a failed replace puts the old state back.
import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { sandboxPaths } from '../../../lib/system/sandbox/paths.ts';
import { replaceWithBackup, restoreBetweenRuns } from '../../../lib/restore-between-runs.ts';
import { callerHeaders, createTestApp, type TestApp } from '../../../lib/testing.ts';
import { seedSites } from '../../helpers/sites.ts';
import { seedPortalUsers } from '../sites/helpers.ts';
import { timed } from '../../helpers/timeout.ts';

const s = suite('backup: restore in the panel');

async function post(t: TestApp, path: string, archive: Uint8Array<ArrayBuffer>, name = 'backup.tar.gz') {
  const form = new FormData();
  form.append('archive', new Blob([archive]), name);
  const response = await t.app.fetch(new Request(`http://panel.test${path}`, { method: 'POST', body: form, headers: callerHeaders('admin') }));
  return { status: response.status, body: await response.json() };
}

const tunnels = async (t: TestApp) => (await t.call('GET', '/api/tunnels')).body.tunnels.map((x: { subdomain: string }) => x.subdomain).sort();
/** What a restore may leave beside the data dir: nothing but the panel's own files and the kept previous state. */
const leftovers = async (t: TestApp) => (await readdir(dirname(t.services.store.dataDir))).filter((n) => n.startsWith('.relay-'));

/** A box with two tunnels, a site and a portal user, and its backup. */
async function backedUpBox(): Promise<{ t: TestApp; archive: Uint8Array<ArrayBuffer> }> {
  const t = await createTestApp({ durable: true });
  await t.completeOnboarding();
  for (const [subdomain, port] of [['app', 9001], ['web', 9002]] as const) assert.is((await t.call('POST', '/api/tunnels', { body: { subdomain, port } })).status, 201);
  await seedSites(t, 'blog');
  await seedPortalUsers(t, 'dana');
  const download = await t.request('GET', '/api/backup');
  assert.is(download.status, 200);
  return { t, archive: new Uint8Array(await download.arrayBuffer()) };
}

s('inspect: the counts and date of what the archive holds, nothing kept or changed', timed(30_000, async () => {
  const { t, archive } = await backedUpBox();
  try {
    const { status, body } = await post(t, '/api/backup/inspect', archive);
    assert.is(status, 200, JSON.stringify(body));
    const live = await readdir(sandboxPaths(t.services.store.dataDir).certsLive);
    assert.ok(live.length >= 2, `the tunnels' certificates at least: ${live}`);
    assert.equal(body.summary.counts, { tunnels: 2, sites: 1, users: 1, agents: 0, certificates: live.length, plugins: 0, webhooks: 0 });
    assert.is(body.summary.domain, t.services.config.value.domain);
    assert.equal(body.summary.sections, ['data']);
    assert.ok(Date.parse(body.summary.created) > 0);
    assert.equal(await leftovers(t), []);
  } finally {
    await t.close();
  }
}));

s('restore: a good archive is handed over, and after the replace the state is the archive\'s', timed(30_000, async () => {
  const { t, archive } = await backedUpBox();
  const configFile = t.services.config.file;
  let handed: Promise<void> | undefined;
  t.services.restoreRequests.listen((file) => {
    // what lib/cli.ts does: stop (the state flushed and closed), replace, start again
    handed = (async () => { await t.close({ keep: true }); await restoreBetweenRuns(configFile, file, { ...process.env, LOG_LEVEL: 'warn' }, process.cwd(), { log: () => {}, error: (line) => assert.unreachable(line) }); })();
  }, 'The panel restarts');
  try {
    assert.is((await t.call('DELETE', `/api/tunnels/${(await t.call('GET', '/api/tunnels')).body.tunnels[0].id}`)).status, 200);
    assert.is((await t.call('POST', '/api/tunnels', { body: { subdomain: 'later', port: 9000 } })).status, 201);
    const before = await tunnels(t);
    assert.equal((await t.call('GET', '/api/backup/restore')).body.inPanel, true);
    const { status, body } = await post(t, '/api/backup/restore', archive);
    assert.equal([status, body.ok, body.summary.counts.tunnels, body.next], [202, true, 2, 'The panel restarts'], JSON.stringify(body));
    assert.ok(handed, 'the archive went to the process');
    await handed;
    const again = await createTestApp({ dir: t.dir });
    try {
      assert.equal(await tunnels(again), ['app', 'web'], `was ${before.join(', ')}`);
      assert.equal((await again.call('GET', '/api/sites')).body.sites.map((x: { name: string }) => x.name), ['blog']);
      const kept = (await leftovers(again)).concat(await readdir(t.dir)).filter((n) => n.includes('.before-restore-'));
      assert.is(kept.length, 2, `the previous data dir and configuration are kept: ${kept}`);
      assert.equal((await leftovers(again)).filter((n) => n.startsWith('.relay-restore-')), [], 'the uploaded archive is gone');
    } finally {
      await again.close();
    }
  } finally {
    await t.close().catch(() => {});
  }
}));

s('a corrupted or foreign archive is 400, handed to no one, and changes nothing', timed(30_000, async () => {
  const { t, archive } = await backedUpBox();
  let handed = 0;
  t.services.restoreRequests.listen(() => handed++, 'The panel restarts');
  try {
    const cut = archive.slice(0, archive.length >> 1);
    const foreign = gzipSync(Buffer.from('not a tar archive at all'.repeat(40)));
    for (const [bytes, why] of [[cut, /^Not a usable relay-panel backup: /], [foreign, /^Not a usable relay-panel backup: /], [new Uint8Array([1, 2, 3]), /^Not a usable relay-panel backup: /]] as const) {
      for (const path of ['/api/backup/inspect', '/api/backup/restore']) {
        const { status, body } = await post(t, path, bytes);
        assert.is(status, 400, `${path}: ${JSON.stringify(body)}`);
        assert.match(body.error, why);
      }
    }
    assert.is((await post(t, '/api/backup/restore', archive, 'backup.zip')).status, 400, 'not a .tar.gz name');
    assert.is(handed, 0);
    assert.equal(await tunnels(t), ['app', 'web']);
    assert.equal(await leftovers(t), []);
  } finally {
    await t.close();
  }
}));

s('without a process to restart it the panel says so (409); a failed replace puts the previous state back', timed(30_000, async () => {
  const { t, archive } = await backedUpBox();
  try {
    const info = (await t.call('GET', '/api/backup/restore')).body;
    assert.equal([info.driver, info.inPanel, info.dataDir], ['sandbox', false, t.services.store.dataDir]);
    assert.ok(info.command.endsWith(`restore --config ${t.services.config.file} --from relay-panel-backup.tar.gz`), info.command);
    const refused = await post(t, '/api/backup/restore', archive);
    assert.equal([refused.status, refused.body.error], [409, 'This panel cannot restore itself: it was not started by its server command (node dist/server.mjs); use the restore command']);
    await t.close({ keep: true });
    const config = await readFile(join(t.dir, 'config.json'), 'utf8');
    await replaceWithBackup(join(t.dir, 'config.json'), join(t.dir, 'no-such-archive.tar.gz'), process.env, process.cwd()).then(
      () => assert.unreachable('a missing archive cannot restore'),
      (error: Error) => assert.match(error.message, /Not a usable relay-panel backup/),
    );
    assert.is(await readFile(join(t.dir, 'config.json'), 'utf8'), config);
    assert.equal((await readdir(t.dir)).filter((n) => n.includes('.before-restore-')), []);
    const again = await createTestApp({ dir: t.dir });
    try {
      assert.equal(await tunnels(again), ['app', 'web']);
      assert.ok(existsSync(again.services.store.dataDir));
    } finally {
      await again.close();
    }
  } finally {
    await t.close().catch(() => {});
  }
}));

s.run();
