import { readFile, rm, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { sandboxPaths } from '../../../lib/system/sandbox/paths.ts';
import { allowedPorts, createTunnel, DOMAIN, tunnelApp, vhostState, type TunnelTestApp } from './helpers.ts';

// After SIGKILLs during a create/delete storm, vhosts without a record stayed
// (most still enabled), enabled records had no vhost, and PATCH {enabled: true} on those was a
// no-op. Start-up (repairHost) and PATCH now bring the host in line with the records.

const s = suite<{ t: TunnelTestApp; id: string }>('tunnels: host repair', {} as { t: TunnelTestApp; id: string });
s.before.each(async (ctx) => {
  ctx.t = await tunnelApp();
  ctx.id = (await createTunnel(ctx.t, 'app', 8080)).body.tunnel.id;
});
s.after.each(async ({ t }) => t.close());

const paths = (t: TunnelTestApp) => sandboxPaths(t.services.store.dataDir);
const vhostFile = (t: TunnelTestApp, subdomain: string) => `relay-app-${subdomain}.${DOMAIN}.conf`;
const loseVhost = async (t: TunnelTestApp, subdomain: string) => {
  await unlink(join(paths(t).routes, vhostFile(t, subdomain)));
  await unlink(join(paths(t).sitesAvailable, vhostFile(t, subdomain)));
};
const toggle = (t: TunnelTestApp, id: string, enabled: boolean) => t.call('PATCH', `/api/tunnels/${id}`, { body: { enabled } });
const LINKED = (subdomain: string) => ({ name: `relay-app-${subdomain}.${DOMAIN}.conf`, written: true, enabled: true });

s('PATCH {enabled: true} on an enabled tunnel whose vhost is gone writes and links it again', async ({ t, id }) => {
  await loseVhost(t, 'app');
  const res = await toggle(t, id, true);
  assert.is(res.status, 200);
  assert.is(res.body.tunnel.enabled, true);
  assert.equal(await vhostState(t, 'app'), LINKED('app'));
});

s('start-up repair writes a vhost edited by hand again from its record; an intact one is left alone', async ({ t }) => {
  const file = join(paths(t).sitesAvailable, vhostFile(t, 'app'));
  const written = await readFile(file, 'utf8');
  await writeFile(file, written.replace('127.0.0.1:8080', '127.0.0.1:22'));
  assert.equal(await vhostState(t, 'app'), { ...LINKED('app'), edited: true });
  const report = await t.services.tunnels.repairHost();
  assert.is(report.repaired.length, 1);
  assert.is(await readFile(file, 'utf8'), written);
  assert.is((await t.services.tunnels.repairHost()).repaired.length, 0, 'nothing to repair the second time');
});

s('PATCH {enabled: true} relinks a vhost whose link alone is gone', async ({ t, id }) => {
  await unlink(join(paths(t).routes, vhostFile(t, 'app')));
  assert.is((await toggle(t, id, true)).status, 200);
  assert.equal(await vhostState(t, 'app'), LINKED('app'));
});

s('PATCH {enabled: true} reissues a missing certificate before writing the vhost', async ({ t, id }) => {
  await loseVhost(t, 'app');
  await rm(join(paths(t).certsLive, `app.${DOMAIN}`), { recursive: true });
  assert.is(await t.services.system.certs.has(`app.${DOMAIN}`), false);
  assert.is((await toggle(t, id, true)).status, 200);
  assert.is(await t.services.system.certs.has(`app.${DOMAIN}`), true);
  assert.equal(await vhostState(t, 'app'), LINKED('app'));
});

s('PATCH {enabled: false} on a disabled tunnel removes a link left behind', async ({ t, id }) => {
  await toggle(t, id, false);
  await t.services.system.proxy.apply([{ op: 'enable', name: vhostFile(t, 'app') }]);
  assert.is((await toggle(t, id, false)).status, 200);
  assert.equal(await vhostState(t, 'app'), { ...LINKED('app'), enabled: false });
});

s('a repair that fails answers 500 Failed to toggle tunnel with the step prefix', async ({ t, id }) => {
  await loseVhost(t, 'app');
  t.sandbox.failNext('proxy.test', 'nginx: [emerg] broken');
  const res = await toggle(t, id, true);
  assert.is(res.status, 500);
  assert.equal(res.body, { error: 'Failed to toggle tunnel', details: 'Nginx configuration failed: nginx: [emerg] broken' });
});

s('repairHost: orphans removed (certificate kept), missing vhosts rewritten, stray links removed, authfile from the records', async ({ t, id }) => {
  const { proxy } = t.services.system;
  const disabledId = (await createTunnel(t, 'off', 8081)).body.tunnel.id;
  await toggle(t, disabledId, false);
  await createTunnel(t, 'gone', 8082);
  // a delete that removed the record but crashed before the vhost went; and a stray grant
  await t.services.store.tunnels.update((list) => void list.splice(list.findIndex((x) => x.subdomain === 'gone'), 1));
  await proxy.apply([{ op: 'put', spec: { kind: 'app', fqdn: `ghost.${DOMAIN}`, port: 9000 }, enabled: false }]);
  await loseVhost(t, 'app');
  await proxy.apply([{ op: 'enable', name: vhostFile(t, 'off') }]);
  await t.services.system.tunnelServer.setAllowedPorts([8080, 8082, 9000]);

  const report = await t.services.tunnels.repairHost();
  assert.equal(report.failures, []);
  assert.equal(report.orphans, [vhostFile(t, 'ghost'), vhostFile(t, 'gone')]);
  assert.equal(report.repaired.sort(), [id, disabledId].sort());
  assert.equal(
    (await proxy.list('app')).map((v) => [v.name, v.written, v.enabled]),
    [
      [vhostFile(t, 'app'), true, true],
      [vhostFile(t, 'off'), true, false],
    ],
  );
  assert.is(await t.services.system.certs.has(`gone.${DOMAIN}`), true, 'a deleted tunnel keeps its certificate');
  assert.equal(await allowedPorts(t), [8080]);
  const again = await t.services.tunnels.repairHost();
  assert.equal([again.orphans, again.repaired], [[], []]);
});

s('repairHost tests and reloads nginx once for every tunnel it repairs, not once per tunnel', async ({ t }) => {
  for (const [i, name] of ['b', 'c', 'd'].entries()) await createTunnel(t, name, 8100 + i);
  for (const name of ['app', 'b', 'c', 'd']) await loseVhost(t, name);
  const tests = t.sandbox.eventsOf('proxy.test').length;
  const reloads = t.sandbox.eventsOf('proxy.reload').length;
  const report = await t.services.tunnels.repairHost();
  assert.is(report.repaired.length, 4);
  assert.is(t.sandbox.eventsOf('proxy.test').length - tests, 1, 'one nginx -t');
  assert.is(t.sandbox.eventsOf('proxy.reload').length - reloads, 1, 'one reload');
  for (const name of ['app', 'b', 'c', 'd']) assert.equal(await vhostState(t, name), LINKED(name));
});

s('when the batch fails its nginx test, each tunnel is applied on its own: the failure is named, the rest land', async ({ t }) => {
  await createTunnel(t, 'b', 8101);
  for (const name of ['app', 'b']) await loseVhost(t, name);
  t.sandbox.failNext('proxy.test', 'nginx: [emerg] the batch');
  t.sandbox.failNext('proxy.test', 'nginx: [emerg] the first alone');
  const report = await t.services.tunnels.repairHost();
  assert.is(report.repaired.length, 1);
  assert.is(report.failures.length, 1);
  assert.match(report.failures[0]!, /^tunnel (app|b)\.[^:]+: Nginx configuration failed: .*the first alone/);
  const states = [await vhostState(t, 'app'), await vhostState(t, 'b')];
  assert.equal(states.filter((state) => state.written && state.enabled).length, 1, 'the other one landed');
});

s('repairHost leaves vhosts of other kinds and foreign files alone', async ({ t }) => {
  const { proxy } = t.services.system;
  await proxy.apply([{ op: 'put', spec: { kind: 'tunnel-server', fqdn: `tunnel.${DOMAIN}` }, enabled: true }]);
  const report = await t.services.tunnels.repairHost();
  assert.equal(report.orphans, []);
  assert.is((await proxy.state(`relay-tunnel-server-tunnel.${DOMAIN}.conf`)).enabled, true);
});

s.run();
