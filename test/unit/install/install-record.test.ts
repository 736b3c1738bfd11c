// The install's record of choices (lib/install/install-record.ts): a --keep-releases given to an
// upgrade is remembered by the next one, without taking an upgrade's one-off --downloads along.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { readInstallRecord, recordKeepReleases, withRecordedChoices } from '../../../lib/install/install-record.ts';
import type { Installation } from '../../../lib/install/installation.ts';
import { KEEP_RELEASES, parseCommandOptions } from '../../../lib/install/options.ts';

const s = suite('install record: --keep-releases is remembered');
let dir = '';
const file = () => join(dir, 'install-options.json');
const parse = (...argv: string[]) => parseCommandOptions(argv, '/opt/relay-panel/releases/1/server.mjs');
const at = (options: ReturnType<typeof parse>) => ({ options, layout: { installRecord: file() } }) as unknown as Installation;

s.before.each(async () => {
  dir = await mkdtemp(join(tmpdir(), 'install-record-'));
});
s.after.each(() => rm(dir, { recursive: true, force: true }));

s('given once, kept by the next upgrade without the flag; the install\'s choices stay and an upgrade\'s --downloads does not join them', async () => {
  await writeFile(file(), JSON.stringify({ harden: false, packages: false, downloads: false }));
  const first = withRecordedChoices(parse('--keep-releases', '5', '--downloads'), await readInstallRecord(file()));
  assert.equal([first.keepReleases, first.downloads], [5, true]);
  await recordKeepReleases(at(first));
  assert.equal(JSON.parse(await readFile(file(), 'utf8')), { harden: false, packages: false, downloads: false, keepReleases: 5 });
  const next = withRecordedChoices(parse(), await readInstallRecord(file()));
  assert.equal([next.keepReleases, next.downloads], [5, false]);
});

s('the default given again leaves the record without it; an upgrade without the flag writes nothing', async () => {
  await writeFile(file(), JSON.stringify({ harden: true, packages: true, downloads: true, keepReleases: 5 }));
  await recordKeepReleases(at(withRecordedChoices(parse(), await readInstallRecord(file()))));
  assert.is(JSON.parse(await readFile(file(), 'utf8')).keepReleases, 5, 'not given: untouched');
  await recordKeepReleases(at(withRecordedChoices(parse('--keep-releases', String(KEEP_RELEASES)), await readInstallRecord(file()))));
  assert.equal(JSON.parse(await readFile(file(), 'utf8')), { harden: true, packages: true, downloads: true });
  assert.is(withRecordedChoices(parse(), await readInstallRecord(file())).keepReleases, KEEP_RELEASES);
});

s('a record from before it, or with a value the option refuses, means the default', async () => {
  assert.is(withRecordedChoices(parse(), await readInstallRecord(file())).keepReleases, KEEP_RELEASES, 'no record');
  for (const bad of [1, '5', 2.5]) {
    await writeFile(file(), JSON.stringify({ keepReleases: bad }));
    assert.is(withRecordedChoices(parse(), await readInstallRecord(file())).keepReleases, KEEP_RELEASES, JSON.stringify(bad));
  }
  assert.throws(() => parse('--keep-releases', '1'), /2 or more/);
});

s.run();
