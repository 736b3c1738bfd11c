import { lstat, mkdir, mkdtemp, readlink, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { disableDebianDefaultSite, restoreDebianDefaultSite } from '../../../lib/install/debian-site.ts';

const s = suite('Debian\'s default nginx site: unlinked by install, linked again by uninstall');
let dir = '';
const dirs = () => ({ sitesAvailable: join(dir, 'sites-available'), sitesEnabled: join(dir, 'sites-enabled') });
const exists = (p: string) => lstat(p).then(() => true, () => false);

s.before.each(async () => {
  dir = await mkdtemp(join(tmpdir(), 'debian-site-'));
  await mkdir(dirs().sitesAvailable);
  await mkdir(dirs().sitesEnabled);
  await writeFile(join(dirs().sitesAvailable, 'default'), 'server { listen 80 default_server; }\n');
});
s.after.each(() => rm(dir, { recursive: true, force: true }));

s('the package\'s link goes and comes back; the file in sites-available stays', async () => {
  await symlink(join(dirs().sitesAvailable, 'default'), join(dirs().sitesEnabled, 'default'));
  assert.is(await disableDebianDefaultSite(dirs()), true);
  assert.is(await exists(join(dirs().sitesEnabled, 'default')), false);
  assert.is(await exists(join(dirs().sitesAvailable, 'default')), true);
  assert.is(await disableDebianDefaultSite(dirs()), false, 'a second run changes nothing');
  assert.is(await restoreDebianDefaultSite(dirs()), true);
  assert.is(await readlink(join(dirs().sitesEnabled, 'default')), join(dirs().sitesAvailable, 'default'));
  assert.is(await restoreDebianDefaultSite(dirs()), false);
});

s('a relative link to the package\'s file counts as the package\'s', async () => {
  await symlink('../sites-available/default', join(dirs().sitesEnabled, 'default'));
  assert.is(await disableDebianDefaultSite(dirs()), true);
});

s('a file of the operator\'s own, or a link elsewhere, is left alone', async () => {
  await writeFile(join(dirs().sitesEnabled, 'default'), 'server { listen 8080; }\n');
  assert.is(await disableDebianDefaultSite(dirs()), false);
  assert.is(await exists(join(dirs().sitesEnabled, 'default')), true);
  await rm(join(dirs().sitesEnabled, 'default'));
  await symlink(join(dir, 'elsewhere'), join(dirs().sitesEnabled, 'default'));
  assert.is(await disableDebianDefaultSite(dirs()), false);
  assert.is(await restoreDebianDefaultSite(dirs()), false, 'the name is taken');
});

s.run();
