// What an upgrade saves of nginx's vhosts for its rollback: besides every vhost and link there now,
// what the new release's first start may add on a wildcard box (the shared tunnels' server and the
// tunnels' route links), saved as absent so a rollback takes them away again.
import { mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ConfigSchema } from '../../../lib/config.ts';
import type { Installation } from '../../../lib/install/installation.ts';
import { vhostFiles } from '../../../lib/install/steps/vhosts.ts';
import { restoreFiles, saveFiles } from '../../../lib/install/file-snapshot.ts';
import { systemConfig } from '../../../lib/system/config.ts';

const s = suite('upgrade rollback of the vhosts');

s('a rollback after a wildcard box\'s first start removes the shared server and the route links, and puts the vhost back', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'vhost-files-'));
  try {
    const nginx = { sitesAvailable: join(dir, 'nginx', 'sites-available'), sitesEnabled: join(dir, 'nginx', 'sites-enabled') };
    const configFile = join(dir, 'config.json');
    await writeFile(configFile, JSON.stringify(ConfigSchema.parse({ ip: '203.0.113.7', domain: 'example.test', email: null, dataDir: join(dir, 'data'), onboarding: { status: 'COMPLETED' }, listen: { host: '127.0.0.1', port: 3100 } })));
    const inst = { system: systemConfig({ driver: 'host', nginx }), layout: { configFile }, options: { user: 'root' } } as unknown as Installation;
    const app = 'relay-app-a.example.test.conf';
    await mkdir(nginx.sitesAvailable, { recursive: true });
    await mkdir(nginx.sitesEnabled, { recursive: true });
    await writeFile(join(nginx.sitesAvailable, app), 'server { }\n');
    await symlink(join(nginx.sitesAvailable, app), join(nginx.sitesEnabled, app));
    const saved = await saveFiles(await vhostFiles(inst));
    // what the new release's start did: the vhost a route, linked in relay-routes, and the shared server
    const routes = join(dir, 'nginx', 'relay-routes');
    await mkdir(routes);
    await writeFile(join(nginx.sitesAvailable, app), 'a.example.test 8080;\n');
    await rm(join(nginx.sitesEnabled, app));
    await symlink(join(nginx.sitesAvailable, app), join(routes, app));
    const shared = 'relay-tunnels-example.test.conf';
    await writeFile(join(nginx.sitesAvailable, shared), 'map $host $relay_tunnel_port { }\n');
    await symlink(join(nginx.sitesAvailable, shared), join(nginx.sitesEnabled, shared));
    await restoreFiles(saved);
    assert.equal(await readdir(routes), [], 'no route link left');
    assert.equal((await readdir(nginx.sitesAvailable)).sort(), [app]);
    assert.equal((await readdir(nginx.sitesEnabled)).sort(), [app]);
    assert.is(await readFile(join(nginx.sitesAvailable, app), 'utf8'), 'server { }\n');
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

s.run();
