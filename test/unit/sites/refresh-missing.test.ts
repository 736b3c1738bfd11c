// Uninstall removes every relay vhost and keeps the records; the install after it must give back a
// working box. The start-up refresh writes a served vhost whose file is gone.
import { lstat, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import * as assert from 'uvu/assert';
import { refreshVhosts } from '../../../lib/host-state/reconcile.ts';
import { sandboxPaths } from '../../../lib/system/sandbox-system.ts';
import { createSite, siteSuite } from './helpers.ts';

const s = siteSuite('the start-up refresh writes served vhosts that are gone');

s('a site whose vhost file and link were removed gets both back; the next start changes nothing', async ({ t }) => {
  const created = await createSite(t, { name: 'docs', type: 'managed' });
  assert.is(created.status, 201, JSON.stringify(created.body));
  const name = `relay-site-${created.body.site.fqdn}.conf`;
  const paths = sandboxPaths(t.services.store.dataDir);
  const written = await readFile(join(paths.sitesAvailable, name), 'utf8');
  await rm(join(paths.sitesEnabled, name));
  await rm(join(paths.sitesAvailable, name));
  const refresh = await refreshVhosts(t.services);
  assert.ok(refresh.rewritten.includes(name), JSON.stringify(refresh));
  assert.is(await readFile(join(paths.sitesAvailable, name), 'utf8'), written);
  assert.ok((await lstat(join(paths.sitesEnabled, name))).isSymbolicLink());
  assert.equal((await refreshVhosts(t.services)).rewritten, []);
});

s('a vhost only unlinked (disabled) stays unlinked: the file is there', async ({ t }) => {
  const created = await createSite(t, { name: 'docs', type: 'managed' });
  const name = `relay-site-${created.body.site.fqdn}.conf`;
  const paths = sandboxPaths(t.services.store.dataDir);
  await rm(join(paths.sitesEnabled, name));
  assert.equal((await refreshVhosts(t.services)).rewritten, []);
  assert.is(await lstat(join(paths.sitesEnabled, name)).catch(() => null), null);
});

s.run();
