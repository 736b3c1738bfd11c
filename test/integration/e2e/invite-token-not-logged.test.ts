// End to end: a real invitation token travels through the real nginx front (both panel vhosts, the
// port-80 redirect, the 495/496 help page) and lands in none of nginx's logs, nor does a ticket id
// in a revocation, while the ordinary requests around them are logged as before. The bundle runs
// in production mode behind our templates.
import { randomBytes } from 'node:crypto';
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { routes } from '../../../handlers/index.ts';
import { publicLocations } from '../../../lib/http/public-locations.ts';
import { createSystem, type IssuedClientCert } from '../../../lib/system/index.ts';
import { createServerCert } from '../../../lib/system/pki/self-signed.ts';
import { timed } from '../../helpers/timeout.ts';
import { startInfra, TEST_DOMAIN, type Infra } from '../../infra/harness.ts';
import { loopbackRequest, type TestResponse } from '../../infra/http.ts';
import { stopProcess, waitFor, type Managed } from '../../infra/processes.ts';
import { startPanelBehindFront } from '../../infra/panel-behind-front.ts';

const s = suite('e2e: invitation tokens stay out of nginx access and error logs');
const PANEL_FQDN = `panel.${TEST_DOMAIN}`;
let infra: Infra;
let panel: Managed | undefined;
let admin: IssuedClientCert;
let revoked: IssuedClientCert;
let token = '';

s.before(async () => {
  infra = await startInfra();
  const system = createSystem(infra.systemConfig(), { dataDir: join(infra.dir, 'front'), publicLocations: publicLocations(routes) });
  admin = await system.pki.issueClientCert('admin');
  // a certificate of our own CA that nginx refuses before choosing a location (495, then the help page)
  revoked = await system.pki.issueClientCert('agent:gone');
  await system.pki.revoke(revoked.serial);
  // panel.<domain> needs a certificate where certbot would put one; who signed it does not matter here
  await createServerCert({ openssl: '/usr/bin/openssl', timeoutMs: 20_000, paths: system.certs.paths(PANEL_FQDN), commonName: PANEL_FQDN,
    subjectAltNames: [`DNS:${PANEL_FQDN}`], days: 2 });
  await system.proxy.apply([
    { op: 'put', spec: { kind: 'ip-panel' }, enabled: true },
    { op: 'put', spec: { kind: 'panel', fqdn: PANEL_FQDN }, enabled: true },
  ]);
  ({ panel } = await startPanelBehindFront(infra, { domain: TEST_DOMAIN, onboarding: 'COMPLETED', health: () => ipPanel('GET', '/api/health') }));
});

s.after(async () => {
  if (panel) await stopProcess(panel);
  await infra?.stop();
});

interface CallOptions {
  cert?: IssuedClientCert;
  body?: unknown;
}

function call(port: number, host: string, method: string, path: string, opts: CallOptions = {}): Promise<TestResponse> {
  const body = opts.body === undefined ? undefined : JSON.stringify(opts.body);
  return loopbackRequest({
    port,
    host,
    path,
    method,
    body,
    headers: body === undefined ? {} : { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) },
    tls: { rejectUnauthorized: false, cert: opts.cert?.certPem, key: opts.cert?.keyPem },
  });
}

const ipPanel = (method: string, path: string, opts?: CallOptions) => call(infra.ports.ipPanel, 'relay-ip-panel.test', method, path, opts);
const panelVhost = (method: string, path: string, opts?: CallOptions) => call(infra.ports.https, PANEL_FQDN, method, path, opts);
const plainHttp = (path: string) => loopbackRequest({ port: infra.ports.http, host: PANEL_FQDN, path });

const logFile = (name: 'access.log' | 'error.log') => join(infra.nginxPrefix, 'logs', name);

/** The log's text from byte `from` on, once a line containing `last` (written after the others) is there. */
async function logUntil(name: 'access.log' | 'error.log', last: string, from = 0): Promise<string> {
  let text = '';
  await waitFor(`${last} in ${name}`, async () => {
    text = (await readFile(logFile(name))).subarray(from).toString('utf8');
    return text.includes(last);
  }, null, 5000);
  return text;
}

s('an invitation opened and accepted through both panel vhosts, the redirect and the help page, and a ticket revoked: no access-log line has the token or the ticket id', timed(30_000, async () => {
  const created = await ipPanel('POST', '/api/invitations', { cert: admin, body: { username: 'erin', email: `erin@${TEST_DOMAIN}` } });
  assert.is(created.status, 201, created.body);
  token = JSON.parse(created.body).token;
  assert.match(token, /^[0-9a-f]{32,}$/);

  const page = await panelVhost('GET', `/invite/${token}`);
  assert.ok(page.status !== 496 && page.status < 500, `the invitation page is public: ${page.status}`);
  assert.is((await panelVhost('GET', `/api/invite/${token}`)).status, 200);
  assert.is((await ipPanel('GET', `/api/invite/${token}`)).status, 200);
  const redirected = await plainHttp(`/invite/${token}`);
  assert.is(redirected.status, 301);
  assert.is(redirected.headers.location, `https://${PANEL_FQDN}:${infra.ports.https}/invite/${token}`);
  const refused = await ipPanel('GET', `/invite/${token}`, { cert: revoked });
  assert.is(refused.status, 496);
  assert.match(refused.body, 'Client certificate required', 'the help page is still served');
  const accepted = await panelVhost('POST', `/api/invite/${token}/accept`, { body: { password: 'erin-password' } });
  assert.is(accepted.status, 200, accepted.body);
  // a ticket id is a credential too: its revocation route takes it in the path
  const ticketId = randomBytes(32).toString('hex');
  assert.is((await ipPanel('DELETE', `/api/tickets/${ticketId}`, { cert: admin })).status, 404);
  assert.is((await ipPanel('DELETE', `/api/tickets/${ticketId}`)).status, 496);

  // ordinary requests of the same kinds: public, certificate-guarded, redirected, refused
  assert.is((await panelVhost('GET', '/api/health')).status, 200);
  assert.is((await ipPanel('GET', '/api/users', { cert: admin })).status, 200);
  assert.is((await plainHttp('/ordinary-redirect')).status, 301);
  assert.is((await ipPanel('GET', '/api/tunnels', { cert: revoked })).status, 496);

  const log = await logUntil('access.log', '"GET /api/tunnels HTTP/1.1" 496');
  for (const line of ['"POST /api/invitations HTTP/1.1" 201', '"GET /api/health HTTP/1.1" 200', '"GET /api/users HTTP/1.1" 200', '"GET /ordinary-redirect HTTP/1.1" 301']) {
    assert.ok(log.includes(line), `logged as before: ${line}`);
  }
  assert.not.ok(log.includes(token), 'no access-log line carries the token');
  assert.not.ok(log.includes(ticketId), 'no access-log line carries the ticket id');
  assert.not.ok(/invite\//.test(log), 'no request under /invite/ or /api/invite/ is logged');
}));

s('with the panel down, the error log names ordinary failed requests but not the invitation or ticket paths', timed(30_000, async () => {
  assert.ok(token, 'the previous test made an invitation');
  await stopProcess(panel!);
  const from = (await stat(logFile('error.log'))).size;
  assert.is((await panelVhost('GET', `/api/invite/${token}`)).status, 502);
  assert.is((await ipPanel('POST', `/api/invite/${token}/accept`, { body: { password: 'erin-password' } })).status, 502);
  const ticketId = randomBytes(32).toString('hex');
  assert.is((await panelVhost('DELETE', `/api/tickets/${ticketId}`, { cert: admin })).status, 502);
  assert.is((await panelVhost('GET', '/api/health')).status, 502);
  const errors = await logUntil('error.log', 'request: "GET /api/health HTTP/1.1"', from);
  assert.match(errors, /connect\(\) failed/);
  assert.not.ok(errors.includes(token), 'no error-log line carries the token');
  assert.not.ok(errors.includes(ticketId), 'no error-log line carries the ticket id');
}));

s.run();
