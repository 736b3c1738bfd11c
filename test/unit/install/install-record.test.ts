// The install's record of choices (lib/install/install-record.ts): a --keep-releases given to an
// upgrade is remembered by the next one, without taking an upgrade's one-off --downloads along; the
// list of what install made says whether it holds all of it (begun on a fresh box) or not.
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { noteCreated, readInstallRecord, recordKeepReleases, withRecordedChoices, writeInstallRecord } from '../../../lib/install/install-record.ts';
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

const made = suite('install record: what install made, and whether that is all of it');
const configDir = () => join(dir, 'etc', 'relay-panel');
const box = () => ({ options: parse(), layout: { installRecord: file(), configDir: configDir() } }) as unknown as Installation;
const created = async () => JSON.parse(await readFile(file(), 'utf8')).created;

made.before.each(async () => {
  dir = await mkdtemp(join(tmpdir(), 'install-record-'));
});
made.after.each(() => rm(dir, { recursive: true, force: true }));

made('a fresh box (no configuration directory yet): the list begun by the user step is complete, and stays so', async () => {
  await noteCreated(box(), { users: ['relay-panel'] });
  assert.equal(await created(), { complete: true, paths: [], users: ['relay-panel'], packages: [] });
  await mkdir(configDir(), { recursive: true });
  await noteCreated(box(), { paths: [join(dir, 'var/lib/relay-panel')] });
  assert.equal(await created(), { complete: true, paths: [join(dir, 'var/lib/relay-panel')], users: ['relay-panel'], packages: [] });
});

made('a box an earlier release installed: the upgrade\'s new service users begin a list that is not complete', async () => {
  await mkdir(configDir(), { recursive: true });
  await writeFile(file(), JSON.stringify({ harden: true, packages: true, downloads: true }));
  await noteCreated(box(), { users: ['relay-panel-chisel'] });
  await noteCreated(box(), { users: ['relay-panel-authelia'] });
  assert.equal(await created(), { complete: false, paths: [], users: ['relay-panel-chisel', 'relay-panel-authelia'], packages: [] });
  assert.is((await readInstallRecord(file())).created?.complete, false);
  // the install's choices stay beside it, and writing them keeps the list as it is
  await writeInstallRecord({ ...box(), options: { ...parse(), system: {} } } as unknown as Installation);
  assert.is((await readInstallRecord(file())).created?.complete, false);
});

made('the configuration directory noted as made now (its users were there already): the list is complete', async () => {
  await mkdir(configDir(), { recursive: true });
  await noteCreated(box(), { paths: [configDir()] });
  assert.is((await created()).complete, true);
});

made('a record from before `complete` is read as not complete; a later note does not make it so', async () => {
  await writeFile(file(), JSON.stringify({ created: { paths: ['/etc/relay-panel'], users: ['relay-panel'], packages: [] } }));
  assert.equal((await readInstallRecord(file())).created, { complete: false, paths: ['/etc/relay-panel'], users: ['relay-panel'], packages: [] });
  await noteCreated(box(), { paths: [configDir()] });
  assert.is((await created()).complete, false);
});

s.run();
made.run();
