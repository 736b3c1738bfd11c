// The tunnels the wildcard covers share one nginx server: each one's file in sites-available is a
// route (its name and port) linked in the routes directory, which only the shared server's map
// reads. The store links each file where its kind belongs and moves it when the kind changes, puts
// links back where they were when nginx refuses a change, and the root helper takes the new shapes
// and nothing looser.
import { lstat, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { entriesOfSpec, entriesOfVhostText } from '../../../lib/root-helper/tls-entries.ts';
import { renderVhost } from '../../../lib/system/proxy/templates.ts';
import { isRootTlsSource } from '../../../lib/root-helper/tls-directives.ts';
import { rewrittenVhost } from '../../../lib/root-helper/tls-paths-rewrite.ts';
import { vhostChangesSchema } from '../../../lib/system/proxy/vhost-request.ts';
import type { VhostSpec } from '../../../lib/system/types.ts';
import { SAMPLE_TEMPLATE_CONTEXT } from '../../helpers/template-context.ts';
import { vhostBox, type VhostBox } from '../../helpers/vhost-box.ts';

const s = suite<{ box: VhostBox }>('shared tunnels: routes of one server', {} as { box: VhostBox });
s.before.each(async (ctx) => {
  ctx.box = await vhostBox('shared-tunnels-');
});
s.after.each(({ box }) => box.remove());

const NAME = 'relay-app-app.example.test.conf';
const shared: VhostSpec = { kind: 'app', fqdn: 'app.example.test', port: 8080, cert: 'example.test', shared: true };
const own: VhostSpec = { kind: 'app', fqdn: 'app.example.test', port: 8080 };
const linkedIn = async (box: VhostBox, which: 'enabled' | 'routes') => (await readdir(join(box.dir, which)).catch(() => [] as string[])).includes(NAME);
const places = async (box: VhostBox) => ({ enabled: await linkedIn(box, 'enabled'), routes: await linkedIn(box, 'routes') });

s('a shared app\'s route is linked in the routes directory, never in sites-enabled; its state and listing see it', async ({ box }) => {
  await box.proxy.apply([{ op: 'put', spec: shared, enabled: true }]);
  assert.equal(await places(box), { enabled: false, routes: true });
  assert.ok((await lstat(join(box.dir, 'routes', NAME))).isSymbolicLink());
  assert.equal(await box.proxy.state(NAME), { name: NAME, written: true, enabled: true });
  assert.equal((await box.proxy.list('app')).map((v) => [v.name, v.enabled]), [[NAME, true]]);
});

s('disable and enable by name: the link goes, and comes back where the file\'s kind belongs', async ({ box }) => {
  await box.proxy.apply([{ op: 'put', spec: shared, enabled: true }]);
  await box.proxy.apply([{ op: 'disable', name: NAME }]);
  assert.equal(await places(box), { enabled: false, routes: false });
  assert.ok((await box.proxy.state(NAME)).written, 'the file is kept');
  await box.proxy.apply([{ op: 'enable', name: NAME }]);
  assert.equal(await places(box), { enabled: false, routes: true });
});

s('a put of the other kind moves the link (a mode switch), and a refused change puts it back', async ({ box }) => {
  await box.proxy.apply([{ op: 'put', spec: shared, enabled: true }]);
  await box.proxy.apply([{ op: 'put', spec: own, enabled: true }]);
  assert.equal(await places(box), { enabled: true, routes: false });
  box.failTest = 'nginx: [emerg] refused';
  await box.proxy.apply([{ op: 'put', spec: shared, enabled: true }]).then(() => assert.unreachable('nginx refused it'), () => undefined);
  assert.equal(await places(box), { enabled: true, routes: false }, 'linked as a vhost of its own again');
  await box.proxy.apply([{ op: 'put', spec: shared, enabled: true }]);
  box.failTest = 'nginx: [emerg] refused';
  await box.proxy.apply([{ op: 'remove', name: NAME }]).then(() => assert.unreachable('nginx refused it'), () => undefined);
  assert.equal(await places(box), { enabled: false, routes: true }, 'the route linked again');
});

s('remove takes the file and its link wherever it is', async ({ box }) => {
  await box.proxy.apply([{ op: 'put', spec: shared, enabled: true }]);
  await box.proxy.apply([{ op: 'remove', name: NAME }]);
  assert.equal(await places(box), { enabled: false, routes: false });
  assert.not.ok((await box.proxy.state(NAME)).written);
});

s('the root helper takes a shared app under its wildcard and the shared server, and nothing looser', () => {
  const ok = (spec: unknown) => vhostChangesSchema('/srv/sites').safeParse([{ op: 'put', spec, enabled: true }]).success;
  assert.ok(ok(shared));
  assert.ok(ok({ kind: 'tunnels', fqdn: 'example.test' }));
  assert.ok(ok({ ...own, shared: true }), 'per name, shared without a lineage: the map serves its own');
  assert.ok(ok({ kind: 'tunnels', fqdn: 'example.test', sni: true }));
  assert.not.ok(ok({ kind: 'tunnels', fqdn: 'example.test', sni: false }));
  assert.not.ok(ok({ ...own, public: true, shared: true }), 'a public app is never shared, per name either');
  assert.not.ok(ok({ ...own, cert: 'app.example.test', shared: true }), 'its own lineage is no wildcard');
  assert.not.ok(ok({ ...shared, public: true }), 'a public app keeps a server that never asks the portal');
  assert.not.ok(ok({ ...shared, cert: 'other.test' }), 'a lineage that does not cover the name');
  assert.not.ok(ok({ kind: 'tunnels', fqdn: 'example.test', cert: 'x.test' }));
  assert.not.ok(ok({ kind: 'tunnels', fqdn: '../etc' }));
});

s('TLS copies: a route loads none itself (the per-name map\'s copies go with that server: the root helper\'s test), the shared server its domain\'s lineage or per name the fallback', () => {
  assert.equal(entriesOfSpec(shared), []);
  assert.equal(entriesOfVhostText('/etc/nginx/tls', NAME, renderVhost(shared, SAMPLE_TEMPLATE_CONTEXT)), [], 'the written route says the same as its spec');
  assert.equal(entriesOfSpec({ kind: 'tunnels', fqdn: 'example.test' }), ['example.test']);
  const sni: VhostSpec = { kind: 'tunnels', fqdn: 'example.test', sni: true };
  assert.equal(entriesOfSpec(sni), ['default']);
  assert.equal(entriesOfVhostText('/etc/nginx/tls', 'relay-tunnels-example.test.conf', renderVhost(sni, SAMPLE_TEMPLATE_CONTEXT)), ['default']);
});

s('root loads the per-name map\'s one variable as its own material, and no other variable or path outside the copies', () => {
  assert.ok(isRootTlsSource('/etc/nginx/tls', 'data:$relay_sni_pem0$relay_sni_pem1$relay_sni_pem2$relay_sni_pem3'));
  assert.not.ok(isRootTlsSource('/etc/nginx/tls', 'data:$relay_sni_pem0$relay_sni_pem1$relay_sni_pem2$relay_sni_pem3x'));
  assert.not.ok(isRootTlsSource('/etc/nginx/tls', 'data:$relay_sni_pem0'), 'a part alone');
  assert.not.ok(isRootTlsSource('/etc/nginx/tls', 'data:$http_x_cert'), 'a value a client could send');
  assert.not.ok(isRootTlsSource('/etc/nginx/tls', '/etc/nginx/tls/$ssl_server_name/fullchain.pem'));
  const text = renderVhost({ kind: 'tunnels', fqdn: 'example.test', sni: true }, { ...SAMPLE_TEMPLATE_CONTEXT, sniDir: '/etc/nginx/tls/sni' });
  assert.is(rewrittenVhost('/etc/nginx/tls', 'relay-tunnels-example.test.conf', text), null, 'nothing for the installer to rewrite');
});

s.run();
