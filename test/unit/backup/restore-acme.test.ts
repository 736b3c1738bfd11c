// Restoring an earlier release's backup (its letsencrypt section made from Debian's
// /etc/letsencrypt) onto a box with the panel's own certbot directories: the lineages' renewal
// configurations name this box's directories, so certbot renews where this box keeps them.
import { lstat, mkdtemp, readFile, readlink, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { gzippedTar } from '../../helpers/tar-archive.ts';
import { restoreBackup } from '../../../lib/backup/restore.ts';

const s = suite('restore: the letsencrypt section renews in this box\'s certbot directories');
let dir: string;
s.before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'relay-restore-acme-'));
});
s.after(() => rm(dir, { recursive: true, force: true }));


const OLD = { configDir: '/etc/letsencrypt', workDir: '/var/lib/letsencrypt', logsDir: '/var/log/letsencrypt', webroot: '/var/www/html' };
const conf = (a: typeof OLD) => `version = 2.1.0
archive_dir = ${a.configDir}/archive/panel.example.com
cert = ${a.configDir}/live/panel.example.com/cert.pem
[renewalparams]
renew_hook = /opt/relay-panel/bin/relay-panel-root nginx-reload
config_dir = ${a.configDir}
work_dir = ${a.workDir}
logs_dir = ${a.logsDir}
webroot_path = ${a.webroot},
[[webroot_map]]
panel.example.com = ${a.webroot}
`;

s('an earlier release\'s lineage comes back with this box\'s paths in its renewal configuration; its links and files as they were', async () => {
  const base = { ip: '203.0.113.10', domain: 'example.com', email: 'ops@example.com', onboarding: { status: 'COMPLETED' } };
  const archive = join(dir, 'backup.tar.gz');
  await writeFile(archive, gzippedTar([
    { path: 'manifest.json', body: JSON.stringify({ format: 'relay-panel-backup', version: 1, created: '2026-11-23T12:00:00.000Z', sections: ['data', 'letsencrypt'] }) },
    { path: 'config.json', body: JSON.stringify({ ...base, dataDir: '/var/lib/relay-panel', system: { driver: 'host', acme: OLD } }) },
    { path: 'data/', type: 'Directory' as const },
    { path: 'data/tunnels.json', body: '[]' },
    { path: 'letsencrypt/', type: 'Directory' as const },
    { path: 'letsencrypt/renewal/', type: 'Directory' as const },
    { path: 'letsencrypt/renewal/panel.example.com.conf', body: conf(OLD) },
    { path: 'letsencrypt/archive/panel.example.com/', type: 'Directory' as const },
    { path: 'letsencrypt/archive/panel.example.com/cert1.pem', body: 'cert 1\n' },
    { path: 'letsencrypt/live/panel.example.com/', type: 'Directory' as const },
    { path: 'letsencrypt/live/panel.example.com/cert.pem', type: 'SymbolicLink' as const, linkpath: '../../archive/panel.example.com/cert1.pem' },
  ]));
  const here = { configDir: join(dir, 'etc/relay-panel/letsencrypt'), workDir: join(dir, 'var/lib/relay-panel-acme'), logsDir: join(dir, 'var/log/relay-panel-acme'), webroot: join(dir, 'var/www/relay-panel-acme') };
  const configFile = join(dir, 'config.json');
  await writeFile(configFile, JSON.stringify({ ...base, dataDir: join(dir, 'data'), system: { driver: 'host', acme: here } }));

  const restored = await restoreBackup(configFile, archive);
  assert.equal(restored.sections, ['data', 'letsencrypt']);
  const text = await readFile(join(here.configDir, 'renewal', 'panel.example.com.conf'), 'utf8');
  assert.is(text, conf(here));
  assert.is((await lstat(join(here.configDir, 'renewal', 'panel.example.com.conf'))).mode & 0o777, 0o644);
  assert.is(await readlink(join(here.configDir, 'live/panel.example.com/cert.pem')), '../../archive/panel.example.com/cert1.pem');
  assert.is(await readFile(join(here.configDir, 'live/panel.example.com/cert.pem'), 'utf8'), 'cert 1\n');
});

s.run();
