// Switching the certificate mode through the API on the sandbox: to wildcard (plugin package,
// credentials file, one issuance, vhosts pointed at the lineage), tunnels and sites created after
// it with no issuance, back to per-name, and every failure taken back whole.
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { dnsCredentialsPath } from '../../../../lib/certs/dns01/credentials-file.ts';
import { sandboxControls, sandboxPaths } from '../../../../lib/system/sandbox-system.ts';
import { createTestApp } from '../../../../lib/testing.ts';
import { refreshVhosts } from '../../../../lib/host-state/reconcile.ts';
import { createTunnel, DOMAIN, tunnelApp, type TunnelTestApp } from '../../tunnels/helpers.ts';
import { tunnelsVhost } from '../../../../lib/host-state/vhost-specs.ts';

const s = suite<{ t: TunnelTestApp }>('dns01: certificate mode switch', {} as { t: TunnelTestApp });
s.before.each(async (ctx) => {
  ctx.t = await tunnelApp();
});
s.after.each(async (ctx) => {
  await ctx.t.close();
});

const SECRET = 'c2VjcmV0LWtleS1mb3ItdGVzdHM=';
const WILDCARD = { mode: 'wildcard', provider: 'rfc2136', credentials: { server: '127.0.0.1', port: 15353, name: 'certbot-key', secret: SECRET }, propagationSeconds: 0 };

const put = (t: TunnelTestApp, body: unknown) => t.call('PUT', '/api/settings/certificates', { body });
const vhostText = (t: TunnelTestApp, fqdn: string) => readFile(join(sandboxPaths(t.services.store.dataDir).sitesAvailable, `relay-app-${fqdn}.conf`), 'utf8');
const certPath = (t: TunnelTestApp, name: string) => t.services.system.certs.paths(name).fullchain;
const exists = (path: string) => stat(path).then(() => true, () => false);

/** The tunnel's file is a route linked where the shared server's map reads it; that server loads the lineage. */
async function servedByWildcard(t: TunnelTestApp, fqdn: string, port: number): Promise<void> {
  const paths = sandboxPaths(t.services.store.dataDir);
  assert.match(await vhostText(t, fqdn), new RegExp(`^${fqdn.replaceAll('.', '\\.')} ${port};$`, 'm'), 'the tunnel\'s file is its route');
  assert.ok(await exists(join(paths.routes, `relay-app-${fqdn}.conf`)), 'the route is linked in the routes directory');
  assert.not.ok(await exists(join(paths.sitesEnabled, `relay-app-${fqdn}.conf`)), 'and not as a vhost of its own');
  const shared = await readFile(join(paths.sitesEnabled, `relay-tunnels-${DOMAIN}.conf`), 'utf8');
  assert.ok(shared.includes(`ssl_certificate "${certPath(t, DOMAIN)}";`), 'the shared server loads the wildcard');
  assert.ok(shared.includes(`server_name *.${DOMAIN};`));
}

s('GET: per-name by default, the providers and their packages', async ({ t }) => {
  const { status, body } = await t.call('GET', '/api/settings/certificates');
  assert.is(status, 200);
  assert.is(body.mode, 'per-name');
  assert.is(body.provider, null);
  assert.equal(body.providers.map((p: { name: string }) => p.name), ['rfc2136', 'cloudflare', 'digitalocean', 'route53', 'ovh', 'linode', 'gandi', 'google', 'dnsimple']);
  assert.equal(body.providers[0].package, 'python3-certbot-dns-rfc2136');
});

s('to wildcard: package, 0600 credentials, one issuance, existing vhosts rewritten; the secret is never answered', async ({ t }) => {
  assert.is((await createTunnel(t, 'before', 7000)).status, 201);
  const { status, body } = await put(t, WILDCARD);
  assert.is(status, 200, JSON.stringify(body));
  assert.equal({ ...body, providers: [] }, { ok: true, mode: 'wildcard', provider: 'rfc2136', lineage: DOMAIN, propagationSeconds: 0, credentialsSet: ['server', 'port', 'name', 'secret', 'algorithm'], providers: [] });
  assert.not.ok(JSON.stringify(body).includes(SECRET));
  assert.not.ok(JSON.stringify((await t.call('GET', '/api/settings/certificates')).body).includes(SECRET));
  assert.not.ok(JSON.stringify(t.services.config.value).includes(SECRET), 'the configuration holds no credential');

  assert.equal(t.sandbox.eventsOf('packages.install').map((e) => e.detail), [{ name: 'python3-certbot-dns-rfc2136' }]);
  const file = dnsCredentialsPath(t.services.store.dataDir, 'rfc2136');
  assert.is((await stat(file)).mode & 0o777, 0o600);
  assert.match(await readFile(file, 'utf8'), new RegExp(`^dns_rfc2136_secret = ${SECRET.replace(/[+/=]/g, '\\$&')}$`, 'm'));
  assert.equal(t.sandbox.eventsOf('certs.issueWildcard').map((e) => e.detail), [{ domain: DOMAIN, authenticator: 'dns-rfc2136' }]);
  assert.ok(await t.services.system.certs.has(DOMAIN));
  await servedByWildcard(t, `before.${DOMAIN}`, 7000);
});

s('a box whose configuration names the root helper is no longer refused (409): the switch runs there too', async ({ t }) => {
  const { config } = t.services;
  await config.update({ system: { ...config.value.system, rootHelper: { socket: '/run/relay-panel-root.sock', call: '/opt/relay-panel/bin/relay-panel-root' } } });
  assert.is((await createTunnel(t, 'before', 7000)).status, 201);
  const { status, body } = await put(t, WILDCARD);
  assert.is(status, 200, JSON.stringify(body));
  await servedByWildcard(t, `before.${DOMAIN}`, 7000);
});

s('wildcard asked again (new credentials): the shared server is already in that form and is not written, tested or reloaded again', async ({ t }) => {
  assert.is((await put(t, WILDCARD)).status, 200);
  const server = join(sandboxPaths(t.services.store.dataDir).sitesAvailable, `relay-tunnels-${DOMAIN}.conf`);
  const before = (await stat(server)).mtimeMs;
  const reloads = t.sandbox.eventsOf('proxy.reload').length;
  const again = await put(t, { ...WILDCARD, credentials: { ...WILDCARD.credentials, name: 'another-key' } });
  assert.is(again.status, 200, JSON.stringify(again.body));
  assert.is((await stat(server)).mtimeMs, before, 'the shared server untouched');
  assert.is(t.sandbox.eventsOf('proxy.reload').length, reloads, 'no reload');
});

s('in wildcard mode a tunnel and a managed site under the domain are created with no issuance', async ({ t }) => {
  assert.is((await put(t, WILDCARD)).status, 200);
  const issued = t.sandbox.eventsOf('certs.issue').length;
  assert.is((await createTunnel(t, 'app', 8080)).status, 201);
  assert.is(t.sandbox.eventsOf('certs.issue').length, issued, 'no certbot run for the tunnel');
  assert.not.ok(await t.services.system.certs.has(`app.${DOMAIN}`));
  await servedByWildcard(t, `app.${DOMAIN}`, 8080);
  const site = await t.call('POST', '/api/sites', { body: { name: 'blog', type: 'managed' } });
  assert.is(site.status, 201, JSON.stringify(site.body));
  assert.is(t.sandbox.eventsOf('certs.issue').length, issued, 'no certbot run for the managed site either');
});

s('a failed issuance takes everything back: no package, no credentials file, no lineage, vhosts and mode as before', async ({ t }) => {
  assert.is((await createTunnel(t, 'before', 7000)).status, 201);
  const vhostBefore = await vhostText(t, `before.${DOMAIN}`);
  t.sandbox.failNext('certs.issueWildcard', 'The peer didn\'t know the key we used');
  const { status, body } = await put(t, WILDCARD);
  assert.is(status, 500);
  assert.is(body.error, 'Certificate mode change failed');
  assert.match(body.details, /^Certificate issuance failed: The peer didn't know the key we used/);
  assert.not.ok(await t.services.system.packages.installed('python3-certbot-dns-rfc2136'), 'the package the switch installed is removed');
  assert.equal(t.sandbox.eventsOf('packages.remove').map((e) => e.detail), [{ name: 'python3-certbot-dns-rfc2136' }]);
  assert.not.ok(await exists(dnsCredentialsPath(t.services.store.dataDir, 'rfc2136')), 'no credentials file left');
  assert.is(t.services.config.value.certificateMode.mode, 'per-name');
  assert.is(await vhostText(t, `before.${DOMAIN}`), vhostBefore);
});

s('a failed nginx step removes the lineage the switch issued, and the vhosts keep their own certificates; the shared server is put back per name', async ({ t }) => {
  // the shared server as onboarding writes it with the stack: per name, root's map
  await t.services.system.proxy.apply([{ op: 'put', spec: tunnelsVhost(DOMAIN, t.services.config.value), enabled: true }]);
  const sharedPath = join(sandboxPaths(t.services.store.dataDir).sitesAvailable, `relay-tunnels-${DOMAIN}.conf`);
  const sharedBefore = await readFile(sharedPath, 'utf8');
  assert.ok(sharedBefore.includes('ssl_certificate data:$relay_sni_pem0'));
  assert.is((await createTunnel(t, 'before', 7000)).status, 201);
  const vhostBefore = await vhostText(t, `before.${DOMAIN}`);
  await t.services.system.packages.install('python3-certbot-dns-rfc2136');
  t.sandbox.failNext('proxy.refresh', 'nginx: [emerg] cannot load certificate');
  const { status, body } = await put(t, WILDCARD);
  assert.is(status, 500);
  assert.match(body.details, /^Nginx configuration failed: nginx: \[emerg\]/);
  assert.not.ok(await t.services.system.certs.has(DOMAIN), 'the wildcard lineage is gone');
  assert.ok(await t.services.system.packages.installed('python3-certbot-dns-rfc2136'), 'a package that was there before stays');
  assert.not.ok(await exists(dnsCredentialsPath(t.services.store.dataDir, 'rfc2136')));
  assert.is(await vhostText(t, `before.${DOMAIN}`), vhostBefore);
  assert.is(await readFile(sharedPath, 'utf8'), sharedBefore, 'the shared server per name again, naming no lineage that is gone');
  assert.is(t.services.config.value.certificateMode.mode, 'per-name');
});

s('the certificates page lists the wildcard lineage with both names, as renewal and the cert alerts see it', async ({ t }) => {
  assert.is((await put(t, WILDCARD)).status, 200);
  const { status, body } = await t.call('GET', '/api/certs');
  assert.is(status, 200);
  const wildcard = (body.certs as Array<{ name: string; domains: string[] }>).find((c) => c.name === DOMAIN);
  assert.equal(wildcard?.domains, [DOMAIN, `*.${DOMAIN}`]);
});

s('a lineage of the bare domain without the wildcard name (made outside the switch) is grown, never taken for the wildcard', async ({ t }) => {
  await t.services.system.certs.issue(DOMAIN, `ops@${DOMAIN}`);
  assert.is((await put(t, WILDCARD)).status, 200);
  assert.is(t.sandbox.eventsOf('certs.issueWildcard').length, 1);
  const listed = (await t.call('GET', '/api/certs')).body.certs as Array<{ name: string; domains: string[] }>;
  assert.equal(listed.find((c) => c.name === DOMAIN)?.domains, [DOMAIN, `*.${DOMAIN}`]);
});

s('during onboarding (domain set, nothing served yet): the wildcard is issued and nothing is rewritten', async () => {
  const t = await createTestApp();
  try {
    assert.is((await t.call('POST', '/api/onboarding/domain', { body: { domain: DOMAIN, email: `ops@${DOMAIN}` } })).status, 200);
    const { status, body } = await put(t as TunnelTestApp, WILDCARD);
    assert.is(status, 200, JSON.stringify(body));
    assert.is(t.services.config.value.certificateMode.mode, 'wildcard');
    assert.equal(sandboxControls(t.services.system).eventsOf('proxy.test'), []);
  } finally {
    await t.close();
  }
});

s('credentials of the wrong shape: 400 before anything is done', async ({ t }) => {
  const { status, body } = await put(t, { ...WILDCARD, credentials: { ...WILDCARD.credentials, algorithm: 'hmac-sha256' } });
  assert.is(status, 400);
  assert.is(body.error, 'Validation failed');
  assert.equal(t.sandbox.eventsOf('packages.install'), []);
});

s('back to per-name: each covered name gets its own certificate before its vhost names it; the lineage and credentials go', async ({ t }) => {
  assert.is((await put(t, WILDCARD)).status, 200);
  assert.is((await createTunnel(t, 'app', 8080)).status, 201);
  assert.not.ok(await t.services.system.certs.has(`app.${DOMAIN}`));
  const { status, body } = await put(t, { mode: 'per-name' });
  assert.is(status, 200, JSON.stringify(body));
  assert.is(body.mode, 'per-name');
  assert.ok(await t.services.system.certs.has(`app.${DOMAIN}`), 'issued through HTTP-01');
  const paths = sandboxPaths(t.services.store.dataDir);
  assert.match(await vhostText(t, `app.${DOMAIN}`), new RegExp(`^app\\.${DOMAIN.replaceAll('.', '\\.')} 8080;$`, 'm'), 'still a route of the shared server');
  assert.ok(await exists(join(paths.routes, `relay-app-app.${DOMAIN}.conf`)), 'linked where the map reads it');
  const shared = await readFile(join(paths.sitesEnabled, `relay-tunnels-${DOMAIN}.conf`), 'utf8');
  assert.ok(shared.includes('ssl_certificate data:$relay_sni_pem0$relay_sni_pem1$relay_sni_pem2$relay_sni_pem3;'), 'the shared server serves each name its own certificate');
  assert.not.ok(shared.includes(`ssl_certificate "${certPath(t, DOMAIN)}";`), 'and no longer the wildcard');
  assert.not.ok(await t.services.system.certs.has(DOMAIN), 'the wildcard lineage is deleted');
  assert.not.ok(await exists(dnsCredentialsPath(t.services.store.dataDir, 'rfc2136')));
});

s('back to per-name with a failed issuance: still wildcard, vhosts still on the lineage', async ({ t }) => {
  assert.is((await put(t, WILDCARD)).status, 200);
  assert.is((await createTunnel(t, 'app', 8080)).status, 201);
  t.sandbox.failNext('certs.issue', 'too many certificates already issued');
  const { status, body } = await put(t, { mode: 'per-name' });
  assert.is(status, 500);
  assert.match(body.details, /^Certificate issuance failed: too many certificates/);
  assert.is(t.services.config.value.certificateMode.mode, 'wildcard');
  await servedByWildcard(t, `app.${DOMAIN}`, 8080);
  assert.ok(await t.services.system.certs.has(DOMAIN));
});

s('in wildcard mode a tunnel made public gets a server of its own on the lineage, never asking the portal, and back a route of the shared server', async ({ t }) => {
  assert.is((await put(t, WILDCARD)).status, 200);
  const id = (await createTunnel(t, 'app', 8080)).body.tunnel.id as string;
  const opened = await t.call('PUT', `/api/tunnels/${id}/access`, { body: { mode: 'public' } });
  assert.is(opened.status, 200, JSON.stringify(opened.body));
  const paths = sandboxPaths(t.services.store.dataDir);
  const own = await vhostText(t, `app.${DOMAIN}`);
  assert.ok(own.includes(`ssl_certificate "${certPath(t, DOMAIN)}";`), 'the lineage, not a certificate of its own that is not there');
  assert.ok(own.includes(`server_name app.${DOMAIN};`) && !own.includes('auth_request'));
  assert.ok(await exists(join(paths.sitesEnabled, `relay-app-app.${DOMAIN}.conf`)));
  assert.not.ok(await exists(join(paths.routes, `relay-app-app.${DOMAIN}.conf`)));
  assert.is((await t.call('PUT', `/api/tunnels/${id}/access`, { body: { mode: 'authenticated' } })).status, 200);
  await servedByWildcard(t, `app.${DOMAIN}`, 8080);
});

s('a wildcard box from the release before the shared server: its start writes that server, then turns each tunnel\'s vhost into its route', async ({ t }) => {
  assert.is((await put(t, WILDCARD)).status, 200);
  assert.is((await createTunnel(t, 'app', 8080)).status, 201);
  // what that release left: the tunnel's own server naming the lineage, linked in sites-enabled, and no shared server
  const { proxy } = t.services.system;
  const shared = `relay-tunnels-${DOMAIN}.conf`;
  await proxy.apply([{ op: 'remove', name: shared }, { op: 'put', spec: { kind: 'app', fqdn: `app.${DOMAIN}`, port: 8080, cert: DOMAIN }, enabled: true }]);
  const paths = sandboxPaths(t.services.store.dataDir);
  assert.ok(await exists(join(paths.sitesEnabled, `relay-app-app.${DOMAIN}.conf`)));
  const { rewritten } = await refreshVhosts(t.services);
  assert.equal(rewritten, [`relay-app-app.${DOMAIN}`.concat('.conf'), shared]);
  await servedByWildcard(t, `app.${DOMAIN}`, 8080);
});

s.run();
