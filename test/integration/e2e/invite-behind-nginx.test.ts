// End to end: an invitation accepted through the real nginx front with no client certificate.
// The bundle runs in production mode behind the IP panel vhost our templates render; its sandbox
// system plays the portal (users_database.yml is written for real, the restart is recorded).
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import bcrypt from 'bcryptjs';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { routes } from '../../../handlers/index.ts';
import { publicLocations } from '../../../lib/http/public-locations.ts';
import { createSystem, type IssuedClientCert } from '../../../lib/system/index.ts';
import { timed } from '../../helpers/timeout.ts';
import { startInfra, type Infra } from '../../infra/harness.ts';
import { loopbackRequest, type TestResponse } from '../../infra/http.ts';
import { stopProcess, type Managed } from '../../infra/processes.ts';
import { startPanelBehindFront } from '../../infra/panel-behind-front.ts';

const s = suite('e2e: an invitation accepted through the real nginx front without a certificate');
let infra: Infra;
let panel: Managed | undefined;
let admin: IssuedClientCert;
let dataDir = '';

s.before(async () => {
  infra = await startInfra();
  const system = createSystem(infra.systemConfig(), { dataDir: join(infra.dir, 'front'), publicLocations: publicLocations(routes) });
  admin = await system.pki.issueClientCert('admin');
  await system.proxy.apply([{ op: 'put', spec: { kind: 'ip-panel' }, enabled: true }]);
  ({ panel, dataDir } = await startPanelBehindFront(infra, { domain: 'example.test', onboarding: 'COMPLETED', health: () => call('GET', '/api/health') }));
});

s.after(async () => {
  if (panel) await stopProcess(panel);
  await infra?.stop();
});

function call(method: string, path: string, opts: { cert?: IssuedClientCert; body?: unknown } = {}): Promise<TestResponse> {
  const body = opts.body === undefined ? undefined : JSON.stringify(opts.body);
  return loopbackRequest({
    port: infra.ports.ipPanel,
    host: 'relay-ip-panel.test',
    path,
    method,
    body,
    headers: body === undefined ? {} : { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) },
    tls: { rejectUnauthorized: false, cert: opts.cert?.certPem, key: opts.cert?.keyPem },
  });
}

s('the admin routes need a certificate at nginx (496)', timed(10_000, async () => {
  assert.is((await call('GET', '/api/invitations')).status, 496);
  assert.is((await call('GET', '/api/users')).status, 496);
}));

s('admin invites; the invitee opens the link and sets a password with no certificate; the user exists', timed(30_000, async () => {
  const created = await call('POST', '/api/invitations', { cert: admin, body: { username: 'dana', email: 'dana@example.test', groups: ['dev'] } });
  assert.is(created.status, 201, created.body);
  const { token, inviteUrl } = JSON.parse(created.body);
  assert.is(inviteUrl, `https://panel.example.test/invite/${token}`);

  const shown = await call('GET', `/api/invite/${token}`);
  assert.is(shown.status, 200, shown.body);
  assert.is(JSON.parse(shown.body).username, 'dana');

  const accepted = await call('POST', `/api/invite/${token}/accept`, { body: { password: 'dana-password' } });
  assert.is(accepted.status, 200, accepted.body);
  assert.match(JSON.parse(accepted.body).totpUri, /^otpauth:\/\/totp\/example\.test:dana\?secret=/);

  const again = await call('POST', `/api/invite/${token}/accept`, { body: { password: 'dana-password' } });
  assert.is(again.status, 410);
  assert.equal(JSON.parse(again.body), { error: 'This invitation has already been used' });

  const users = await call('GET', '/api/users', { cert: admin });
  assert.equal(JSON.parse(users.body), { users: [{ username: 'dana', displayname: 'dana', email: 'dana@example.test', groups: ['dev'] }] });
  const db = await readFile(join(dataDir, 'system', 'authelia', 'users_database.yml'), 'utf8');
  assert.ok(await bcrypt.compare('dana-password', db.match(/password: (\S+)/)![1]!));
}));

s('the rate limit keys on the client address nginx forwards: the 11th try in a minute is 429', timed(20_000, async () => {
  const statuses: number[] = [];
  for (let i = 0; i < 11; i++) statuses.push((await call('GET', `/api/invite/${'0'.repeat(64)}`)).status);
  // three tries of this address (127.0.0.1, as nginx forwards it) were spent by the previous test
  assert.equal(statuses, [...Array(7).fill(404), ...Array(4).fill(429)]);
}));

s.run();
