// Backups leave the DNS provider's credentials out: an archive must not carry a key that edits the
// zone (docs/decisions.md, wildcard certificates). Everything else of the data dir is in it.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { backupEntries } from '../../helpers/backup-entries.ts';
import { dnsCredentialsDir, dnsCredentialsPath } from '../../../lib/certs/dns01/credentials-file.ts';

const s = suite('backup: DNS credentials left out');

s('the archive holds the data dir without dns01/', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'relay-backup-dns01-'));
  try {
    const dataDir = join(dir, 'data');
    await mkdir(dnsCredentialsDir(dataDir), { recursive: true });
    await writeFile(dnsCredentialsPath(dataDir, 'cloudflare'), 'dns_cloudflare_api_token = secret\n', { mode: 0o600 });
    await writeFile(join(dataDir, 'tunnels.json'), '[]\n');
    const entries = await backupEntries(dir, dataDir);
    assert.ok(entries.includes('data/tunnels.json'), entries.join(', '));
    assert.equal(entries.filter((p) => p.includes('dns01') || p.includes('cloudflare')), []);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

s.run();
