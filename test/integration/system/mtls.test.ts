// The mTLS front (the IP panel vhost, same body as panel.<domain>) on real nginx, with client
// certificates from our openssl pki.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createServer, type Server } from 'node:http';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { routes } from '../../../handlers/index.ts';
import { publicLocations } from '../../../lib/http/public-locations.ts';
import { createSystem, type IssuedClientCert, type System } from '../../../lib/system/index.ts';
import { signedCert } from '../../../lib/system/pki/openssl-pki.ts';
import { startInfra, type Infra } from '../../infra/harness.ts';
import { loopbackRequest, type TestResponse } from '../../infra/http.ts';
import { timed } from '../../helpers/timeout.ts';

const s = suite('mTLS front with our pki on real nginx');
let infra: Infra;
let system: System;
let backend: Server;
let agent: IssuedClientCert;
let backendHits = 0;

s.before(async () => {
  infra = await startInfra();
  system = createSystem(infra.systemConfig(), { dataDir: join(infra.dir, 'data'), publicLocations: publicLocations(routes) });
  backend = createServer((req, res) => {
    backendHits++;
    const xssl = Object.fromEntries(Object.entries(req.headers).filter(([k]) => k.startsWith('x-ssl')));
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ url: req.url, xssl }));
  });
  await new Promise<void>((r) => backend.listen(infra.ports.panel, '127.0.0.1', () => r()));
  agent = await system.pki.issueClientCert('agent:laptop-1');
  await system.proxy.apply([{ op: 'put', spec: { kind: 'ip-panel' }, enabled: true }]);
});

s.after(async () => {
  await new Promise((r) => backend?.close(r));
  await infra?.stop();
});

// the IP panel's certificate is self-signed: these tests are about the client side
const get = (path: string, opts: { cert?: IssuedClientCert; headers?: Record<string, string> } = {}): Promise<TestResponse> =>
  loopbackRequest({
    port: infra.ports.ipPanel,
    host: 'relay-ip-panel.test',
    path,
    headers: opts.headers,
    tls: { rejectUnauthorized: false, cert: opts.cert?.certPem, key: opts.cert?.keyPem },
  });

s('a certificate from our CA: SUCCESS with its DN and serial', timed(15_000, async () => {
  const r = await get('/api/tunnels', { cert: agent });
  assert.is(r.status, 200);
  const { xssl } = JSON.parse(r.body);
  assert.is(xssl['x-ssl-client-verify'], 'SUCCESS');
  assert.is(xssl['x-ssl-client-dn'], 'CN=agent:laptop-1');
  assert.is(xssl['x-ssl-client-serial'], agent.serial);
}));

s('no certificate: 496 with the help page; public routes see NONE', timed(15_000, async () => {
  const before = backendHits;
  const denied = await get('/api/tunnels');
  assert.is(denied.status, 496);
  assert.match(denied.body, 'Client certificate required');
  assert.is(backendHits, before);
  const health = await get('/api/health');
  assert.is(health.status, 200);
  assert.equal(JSON.parse(health.body).xssl, { 'x-ssl-client-verify': 'NONE' });
}));

s('spoofed X-SSL-* headers never reach the backend', timed(15_000, async () => {
  const spoof = {
    'X-SSL-Client-Verify': 'SUCCESS',
    'X-SSL-Client-DN': 'CN=admin',
    'X-SSL-Client-Serial': '1000',
    'X-SSL-Client-Cert': 'forged',
    'X-SSL-Client-S-DN': 'CN=admin',
  };
  const anonymous = await get('/api/health', { headers: spoof });
  assert.equal(JSON.parse(anonymous.body).xssl, { 'x-ssl-client-verify': 'NONE' });
  const withCert = await get('/api/tunnels', { cert: agent, headers: spoof });
  assert.equal(JSON.parse(withCert.body).xssl, {
    'x-ssl-client-verify': 'SUCCESS',
    'x-ssl-client-dn': 'CN=agent:laptop-1',
    'x-ssl-client-serial': agent.serial,
  });
}));

s('a revoked certificate gets 496 after the CRL reload', timed(20_000, async () => {
  const doomed = await system.pki.issueClientCert('agent:doomed');
  assert.is((await get('/api/tunnels', { cert: doomed })).status, 200);
  await system.pki.revoke(doomed.serial);
  await system.proxy.reload();
  const before = backendHits;
  assert.is((await get('/api/tunnels', { cert: doomed })).status, 496);
  assert.is(backendHits, before);
  assert.is((await get('/api/tunnels', { cert: agent })).status, 200);
}));

/** A CA of our own making, unknown to nginx, and an admin certificate it signed (openssl CLI). */
function foreignCertificate(): IssuedClientCert {
  const dir = mkdtempSync(join(infra.dir, 'foreign-'));
  const at = (name: string) => join(dir, name);
  const openssl = (...args: string[]) => execFileSync('/usr/bin/openssl', args, { stdio: 'ignore' });
  const ecKey = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes'];
  openssl('req', '-x509', ...ecKey, '-subj', '/CN=Foreign CA', '-days', '2', '-keyout', at('ca.key'), '-out', at('ca.pem'));
  openssl('req', '-new', ...ecKey, '-subj', '/CN=admin', '-keyout', at('admin.key'), '-out', at('admin.csr'));
  openssl('x509', '-req', '-in', at('admin.csr'), '-CA', at('ca.pem'), '-CAkey', at('ca.key'), '-set_serial', '0x1000', '-days', '2', '-out', at('admin.pem'));
  return { ...signedCert(readFileSync(at('admin.pem'), 'utf8')), keyPem: readFileSync(at('admin.key'), 'utf8') };
}

s('a certificate from another CA: 496 on protected locations, public ones answer normally', timed(20_000, async () => {
  const foreign = foreignCertificate();
  const before = backendHits;
  const denied = await get('/api/tunnels', { cert: foreign });
  assert.is(denied.status, 496);
  assert.match(denied.body, 'Client certificate required');
  assert.is((await get('/api/onboarding/status', { cert: foreign })).status, 496);
  assert.is(backendHits, before, 'nothing protected reached the backend');
  const health = await get('/api/health', { cert: foreign });
  assert.is(health.status, 200);
  const verify = JSON.parse(health.body).xssl['x-ssl-client-verify'];
  assert.ok(verify.startsWith('FAILED:'), `the backend sees the failure (${verify}), never SUCCESS`);
  assert.is((await get('/invite/abc', { cert: foreign })).status, 200);
}));

s('a CSR signed with a forced subject authenticates as that subject only', timed(20_000, async () => {
  const { execFileSync } = await import('node:child_process');
  const { mkdtempSync, readFileSync } = await import('node:fs');
  const tmp = mkdtempSync(join(infra.dir, 'csr-'));
  execFileSync('/usr/bin/openssl', ['req', '-new', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-subj', '/CN=admin/O=evil',
    '-keyout', join(tmp, 'k.pem'), '-out', join(tmp, 'r.csr')], { stdio: 'ignore' });
  const signed = await system.pki.signCsr(readFileSync(join(tmp, 'r.csr'), 'utf8'), 'agent:enrolled');
  const r = await get('/api/tunnels', { cert: { ...signed, keyPem: readFileSync(join(tmp, 'k.pem'), 'utf8') } });
  const { xssl } = JSON.parse(r.body);
  assert.is(xssl['x-ssl-client-dn'], 'CN=agent:enrolled');
  assert.is(xssl['x-ssl-client-serial'], signed.serial);
}));

s('an expired certificate of our own CA gets 496 and never reaches the backend; public routes see no SUCCESS', timed(20_000, async () => {
  await system.pki.issueClientCert('agent:warm-up'); // the CA and its openssl config exist from here
  const tmp = mkdtempSync(join(infra.dir, 'expired-'));
  const pkiDir = join(infra.dir, 'pki');
  execFileSync('/usr/bin/openssl', ['req', '-new', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-subj', '/CN=x',
    '-keyout', join(tmp, 'k.pem'), '-out', join(tmp, 'r.csr')], { stdio: 'ignore' });
  // the CA's own configuration, with a validity that ended in 2020
  execFileSync('/usr/bin/openssl', ['ca', '-batch', '-config', join(pkiDir, 'ca.cnf'), '-extensions', 'client_ext', '-notext',
    '-startdate', '20200101000000Z', '-enddate', '20200102000000Z', '-subj', '/CN=agent:laptop-1', '-in', join(tmp, 'r.csr'), '-out', join(tmp, 'c.pem')], { stdio: 'ignore' });
  const expired = { ...signedCert(readFileSync(join(tmp, 'c.pem'), 'utf8')), keyPem: readFileSync(join(tmp, 'k.pem'), 'utf8') };
  const before = backendHits;
  assert.is((await get('/api/tunnels', { cert: expired })).status, 496);
  assert.is(backendHits, before);
  const health = await get('/api/health', { cert: expired });
  if (health.status === 200) assert.is.not(JSON.parse(health.body).xssl['x-ssl-client-verify'], 'SUCCESS');
  else assert.is(health.status, 496);
}));

s.run();
