// The store's note of the snapshots it checked (lib/state/checked-snapshots.ts) is this box's cache:
// a backup leaves it out, and a restore drops one an archive carries, so an archive's records are
// always checked in full by the first start after it.
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { gzippedTar } from '../../helpers/tar-archive.ts';
import { backupEntries } from '../../helpers/backup-entries.ts';
import { restoreBackup } from '../../../lib/backup/restore.ts';
import { CHECKED_SNAPSHOTS_FILE } from '../../../lib/state/checked-snapshots.ts';
import { fingerprint } from '../../../lib/state/collection-loader.ts';
import { StoreLoadError } from '../../../lib/state/collection.ts';
import { TunnelRecord } from '../../../lib/state/schemas.ts';
import { schemaFingerprint } from '../../../lib/state/schema-fingerprint.ts';
import { openStore } from '../../../lib/state/store.ts';

const s = suite('backup: the store\'s checked snapshots stay on their box');
let dir: string;
s.before.each(async () => {
  dir = await mkdtemp(join(tmpdir(), 'relay-backup-checked-'));
});
s.after.each(() => rm(dir, { recursive: true, force: true }));

s('a backup leaves the note out and keeps the snapshots', async () => {
  const dataDir = join(dir, 'data');
  const store = await openStore(dataDir);
  await store.tunnels.edit((d) => d.put({ id: '5b0c6a4e-8f7d-4f7e-9a55-0a4c1c3b2d11', subdomain: 'app', fqdn: 'app.relay.test', port: 3000, description: null, enabled: true, createdAt: '2026-11-28T00:00:00.000Z' }));
  await store.close();
  assert.ok((await readdir(dataDir)).includes(CHECKED_SNAPSHOTS_FILE), 'the store noted the snapshot it wrote');
  const entries = await backupEntries(dir, dataDir);
  assert.ok(entries.includes('data/tunnels.json'), entries.join(', '));
  assert.not.ok(entries.some((p) => p.endsWith(CHECKED_SNAPSHOTS_FILE)), entries.join(', '));
});


s('a restored archive\'s note that vouches for a bad record is dropped: the first start checks it and refuses it', async () => {
  const bad = JSON.stringify([{ id: 'not-a-uuid', subdomain: 'app', fqdn: 'app.relay.test', port: 'many', description: null, enabled: true, createdAt: '' }]);
  const note = JSON.stringify({ 'tunnels.json': { text: fingerprint(bad), schema: schemaFingerprint(TunnelRecord) } });
  const base = { ip: '203.0.113.10', domain: 'relay.test', email: 'ops@relay.test', onboarding: { status: 'COMPLETED' } };
  const archive = join(dir, 'backup.tar.gz');
  await writeFile(archive, gzippedTar([
    { path: 'manifest.json', body: JSON.stringify({ format: 'relay-panel-backup', version: 1, created: '2026-11-28T12:00:00.000Z', sections: ['data'] }) },
    { path: 'config.json', body: JSON.stringify({ ...base, dataDir: '/var/lib/relay-panel', system: { driver: 'sandbox' } }) },
    { path: 'data/', type: 'Directory' as const },
    { path: 'data/tunnels.json', body: bad },
    { path: `data/${CHECKED_SNAPSHOTS_FILE}`, body: note },
  ]));
  const dataDir = join(dir, 'restored', 'data');
  await mkdir(join(dir, 'restored'));
  const configFile = join(dir, 'restored', 'config.json');
  await writeFile(configFile, JSON.stringify({ ...base, dataDir, system: { driver: 'sandbox' } }));

  await restoreBackup(configFile, archive);
  const restored = await readdir(dataDir);
  assert.ok(restored.includes('tunnels.json'), restored.join(', '));
  assert.not.ok(restored.includes(CHECKED_SNAPSHOTS_FILE), restored.join(', '));
  const error = await openStore(dataDir).then(() => null, (e: unknown) => e);
  assert.instance(error, StoreLoadError);
});

s.run();
