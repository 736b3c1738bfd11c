// Onboarding end to end over HTTP: real dnsmasq (the domain and a wildcard on loopback), real
// pebble + certbot for the three certificates, real nginx; fake systemctl, chisel and authelia
// (test/fakes/bin) where the real program cannot run here. The app listens on the port the panel
// vhost proxies to, so the finished panel is reached through nginx with a client certificate.
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import bcrypt from 'bcryptjs';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { CompleteEvent } from '../../../lib/onboarding/events.ts';
import { timed, withTimeout } from '../../helpers/timeout.ts';
import { TEST_DOMAIN } from '../../infra/harness.ts';
import { loopbackRequest } from '../../infra/http.ts';
import { startBox, type Box } from './box.ts';

const run = promisify(execFile);
const s = suite('onboarding with real dnsmasq, pebble + certbot and nginx; fake systemctl, chisel and authelia');
let box: Box;

s.before(async () => {
  box = await startBox();
});

s.after(async () => {
  await box?.close();
});

s('a fresh box walks FRESH -> DOMAIN_SET -> DNS_READY -> PROVISIONING -> COMPLETED', timed(240_000, async () => {
  const { call, infra, t } = box;
  assert.equal((await call('GET', '/api/onboarding/status')).body, { status: 'FRESH', domain: null, email: null, suggestedDomain: null, publicLinks: { scheme: 'https', port: infra.ports.https } });
  const domain = await call('POST', '/api/onboarding/domain', { domain: TEST_DOMAIN, email: `ops@${TEST_DOMAIN}` });
  assert.is(domain.status, 200, JSON.stringify(domain.body));

  // dnsmasq answers the domain and every subdomain with 127.0.0.1, the host ip of this box
  const dns = await call('POST', '/api/onboarding/verify-dns');
  assert.is(dns.status, 200, JSON.stringify(dns.body));
  assert.equal(dns.body.base, { name: TEST_DOMAIN, addresses: ['127.0.0.1'], ok: true });
  assert.is(dns.body.wildcard.ok, true);
  assert.is(dns.body.status, 'DNS_READY');

  const stream = await box.openStream();
  const started = await call('POST', '/api/onboarding/provision');
  assert.is(started.status, 202);
  assert.is(started.body.started, true);

  const last = await withTimeout('provisioning run', 200_000, () => stream.waitFor((m) => m.type === 'complete' || m.type === 'error'));
  stream.close();
  assert.is(last.type, 'complete', `run ended with ${JSON.stringify(last)}`);
  const final = last as CompleteEvent;
  assert.is(final.credentials.username, 'admin');
  assert.equal(final.urls, {
    panel: `https://panel.${TEST_DOMAIN}:${infra.ports.https}`,
    authPortal: `https://auth.${TEST_DOMAIN}:${infra.ports.https}`,
    ip: `https://127.0.0.1:${infra.ports.ipPanel}`,
  });
  assert.equal((await call('GET', '/api/onboarding/status')).body.status, 'COMPLETED');
  assert.is((await call('POST', '/api/onboarding/provision')).status, 410);

  // three real certificates from pebble, through certbot
  const certs = await t.services.system.certs.list();
  assert.equal(certs.map((c) => c.domain).sort(), [`auth.${TEST_DOMAIN}`, `panel.${TEST_DOMAIN}`, `tunnel.${TEST_DOMAIN}`]);

  // nginx accepts the whole configuration
  await run('/usr/sbin/nginx', ['-t', '-p', infra.nginxPrefix, '-c', 'nginx.conf']);

  // the panel vhost serves the API over TLS to a client certificate from our pki
  const admin = await t.services.system.pki.issueClientCert('admin');
  const pebbleRoot = await readFile(infra.pebbleRoot, 'utf8');
  const viaPanel = (path: string, cert?: typeof admin) =>
    loopbackRequest({ port: infra.ports.https, host: `panel.${TEST_DOMAIN}`, path, tls: { ca: pebbleRoot, cert: cert?.certPem, key: cert?.keyPem } });
  const status = await viaPanel('/api/onboarding/status', admin);
  assert.is(status.status, 200, status.body);
  assert.is(JSON.parse(status.body).status, 'COMPLETED');
  const tunnels = await viaPanel('/api/tunnels', admin);
  assert.is(tunnels.status, 200, 'management routes are open');
  assert.equal(JSON.parse(tunnels.body), { tunnels: [] });
  assert.is((await viaPanel('/api/tunnels')).status, 496, 'no client certificate');

  // the fakes saw the installs and the portal restart
  const systemctl = (await box.fakes.calls('systemctl')).map((a) => a.join(' '));
  assert.ok(systemctl.includes('enable --now chisel'), systemctl.join('\n'));
  assert.ok(systemctl.includes('restart authelia'), systemctl.join('\n'));
  // the admin user: a bcrypt hash of the password shown once
  const users = await t.services.system.authPortal.readUsers();
  assert.equal(users.map((u) => u.username), ['admin']);
  assert.ok(await bcrypt.compare(final.credentials.password, users[0]!.password));
  assert.not.ok((await readFile(join(box.dir, 'authelia', 'users_database.yml'), 'utf8')).includes(final.credentials.password));
}));

s.run();
