// Attack: a backup archive crafted to write outside the restore, or to plant a link that a later
// write or read follows out of its section (tar's classic ones: `..`, absolute names, symbolic and
// hard links out, device files). verifyArchive reads the whole archive before restore writes
// anything; each archive here is raw tar blocks, so entries can say what a real directory cannot.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { gzippedTar, type TarEntry } from '../../helpers/tar-archive.ts';
import { verifyArchive } from '../../../lib/backup/verify-archive.ts';

const s = suite('backup: hostile archives are refused before anything is written');
let dir: string;
s.before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'relay-hostile-'));
});
s.after(() => rm(dir, { recursive: true, force: true }));

const MANIFEST: TarEntry = { path: 'manifest.json', body: JSON.stringify({ format: 'relay-panel-backup', version: 1, created: '2026-11-23T12:00:00.000Z', sections: ['data', 'sites'] }) };
const CONFIG: TarEntry = {
  path: 'config.json',
  body: JSON.stringify({ ip: '203.0.113.10', domain: null, email: null, dataDir: '/var/lib/relay-panel', onboarding: { status: 'FRESH' } }),
};


let count = 0;
async function archive(...entries: TarEntry[]): Promise<string> {
  const file = join(dir, `a${++count}.tar.gz`);
  await writeFile(file, gzippedTar([MANIFEST, CONFIG, ...entries]));
  return file;
}

async function refusal(file: string): Promise<string> {
  const error = await verifyArchive(file).then(() => null, (e: Error) => e);
  assert.ok(error, 'the archive was accepted');
  return error!.message;
}

s('a well-formed archive with links inside their section is accepted (the checks below can fail)', async () => {
  const file = await archive(
    { path: 'data/', type: 'Directory' },
    { path: 'data/tunnels.json', body: '[]' },
    { path: 'sites/a/index.html', body: 'hi' },
    { path: 'sites/a/latest', type: 'SymbolicLink', linkpath: 'index.html' },
    { path: 'sites/a/copy.html', type: 'Link', linkpath: 'sites/a/index.html' },
  );
  assert.equal((await verifyArchive(file)).manifest.sections, ['data', 'sites']);
});

const HOSTILE: [string, TarEntry[], RegExp][] = [
  ['a name that climbs out', [{ path: 'data/../../etc/cron.d/x', body: 'x' }], /unsafe entry path/],
  ['an absolute name', [{ path: '/etc/cron.d/x', body: 'x' }], /unsafe entry path/],
  ['a backslash name', [{ path: 'data\\..\\..\\x', body: 'x' }], /unsafe entry path/],
  ['a symbolic link out of the archive', [{ path: 'data/link', type: 'SymbolicLink', linkpath: '../../../etc/passwd' }], /points out of its section/],
  ['a symbolic link to an absolute path', [{ path: 'sites/a/passwd', type: 'SymbolicLink', linkpath: '/etc/passwd' }], /points out of its section/],
  ['a symbolic link into another section', [{ path: 'sites/a/records', type: 'SymbolicLink', linkpath: '../../data' }], /points out of its section/],
  ['a link, then a file written through it', [{ path: 'sites/a', type: 'SymbolicLink', linkpath: '/tmp' }, { path: 'sites/a/x', body: 'x' }], /points out of its section/],
  ['a hard link to an absolute path', [{ path: 'data/shadow', type: 'Link', linkpath: '/etc/shadow' }], /points out of its section/],
  ['a hard link into another section', [{ path: 'sites/a/key', type: 'Link', linkpath: 'data/tunnels.json' }], /points out of its section/],
  ['a hard link that climbs', [{ path: 'data/x', type: 'Link', linkpath: 'data/../../etc/shadow' }], /points out of its section/],
  ['a device file', [{ path: 'data/null', type: 'CharacterDevice' }], /is a CharacterDevice/],
  ['a FIFO', [{ path: 'data/fifo', type: 'FIFO' }], /is a FIFO/],
  ['an entry outside the manifest\'s sections', [{ path: 'portal/users_database.yml', body: 'x' }], /in no section/],
];

for (const [name, entries, why] of HOSTILE) {
  s(`refused: ${name}`, async () => {
    assert.match(await refusal(await archive(...entries)), why);
  });
}

s.run();
