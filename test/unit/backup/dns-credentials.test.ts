// Backups leave the DNS provider's credentials out: an archive must not carry a key that edits the
// zone (docs/decisions.md, wildcard certificates). Everything else of the data dir is in it.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { list, type ReadEntry } from 'tar';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { backupStream } from '../../../lib/backup/create-archive.ts';
import { dnsCredentialsDir, dnsCredentialsPath } from '../../../lib/certs/dns01/credentials-file.ts';
import { ConfigSchema } from '../../../lib/config.ts';

const s = suite('backup: DNS credentials left out');

s('the archive holds the data dir without dns01/', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'relay-backup-dns01-'));
  try {
    const dataDir = join(dir, 'data');
    await mkdir(dnsCredentialsDir(dataDir), { recursive: true });
    await writeFile(dnsCredentialsPath(dataDir, 'cloudflare'), 'dns_cloudflare_api_token = secret\n', { mode: 0o600 });
    await writeFile(join(dataDir, 'tunnels.json'), '[]\n');
    const configFile = join(dir, 'config.json');
    await writeFile(configFile, '{}');
    const config = ConfigSchema.parse({ ip: '127.0.0.1', domain: 'relay.test', email: 'ops@relay.test', dataDir, onboarding: { status: 'COMPLETED' }, system: { driver: 'sandbox' } });
    const entries: string[] = [];
    const lister = list({ onReadEntry: (entry: ReadEntry) => void entries.push(entry.path) });
    await pipeline(await backupStream(configFile, config, new Date(0)), lister as unknown as Writable);
    assert.ok(entries.includes('data/tunnels.json'), entries.join(', '));
    assert.equal(entries.filter((p) => p.includes('dns01') || p.includes('cloudflare')), []);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

s.run();
