// A failed run and its retry against the real programs (dnsmasq, pebble + certbot, nginx) with
// fake systemctl, chisel and authelia: the retry keeps the certificates, the portal's secrets and
// the vhosts of the first run, and ends COMPLETED.
import { execFile } from 'node:child_process';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { timed, withTimeout } from '../../helpers/timeout.ts';
import { TEST_DOMAIN } from '../../infra/harness.ts';
import { startBox, type Box } from './box.ts';

const run = promisify(execFile);
const s = suite('onboarding retry with real dnsmasq, pebble + certbot and nginx; fake systemctl, chisel and authelia');
let box: Box;

s.before(async () => {
  box = await startBox();
});

s.after(async () => {
  await box?.close();
});

const terminal = (m: { type: string }) => m.type === 'complete' || m.type === 'error';

s('a run failing at the service check is retried from the start without redoing what it made', timed(240_000, async () => {
  const { call, infra, t } = box;
  assert.is((await call('POST', '/api/onboarding/domain', { domain: TEST_DOMAIN, email: `ops@${TEST_DOMAIN}` })).status, 200);
  assert.is((await call('POST', '/api/onboarding/verify-dns')).status, 200);

  // the panel's own unit is reported failed: task 5 stops the run
  await box.fakes.setUnit('relay-panel', 'failed');
  const first = await box.openStream();
  assert.is((await call('POST', '/api/onboarding/provision')).status, 202);
  const failed = await withTimeout('first run', 200_000, () => first.waitFor(terminal));
  first.close();
  assert.is(failed.type, 'error');
  assert.is(failed.task, 'services');
  assert.is(failed.message, 'Not running: panel (failed)');
  assert.is((await call('GET', '/api/onboarding/status')).body.status, 'PROVISIONING');

  const certsBefore = await t.services.system.certs.list();
  const secrets = await readFile(join(box.dir, 'authelia', 'secrets.json'), 'utf8');
  const credential = await t.services.system.tunnelServer.credential();

  await box.fakes.setUnit('relay-panel', 'active');
  const second = await box.openStream();
  assert.is((await call('POST', '/api/onboarding/provision')).status, 202);
  const outcome = await withTimeout('retry', 200_000, () => second.waitFor(terminal));
  second.close();
  const messages = second.messages;
  assert.is(outcome.type, 'complete', JSON.stringify(outcome));
  assert.is((await call('GET', '/api/onboarding/status')).body.status, 'COMPLETED');

  // certbot was not asked again: same lineages, same expiry
  assert.equal(await t.services.system.certs.list(), certsBefore);
  assert.ok(messages.some((m) => m.task === 'certificates' && m.message === `panel.${TEST_DOMAIN}: a valid certificate exists, kept`));
  assert.is(await readFile(join(box.dir, 'authelia', 'secrets.json'), 'utf8'), secrets, 'portal secrets and storage key kept');
  assert.equal(await t.services.system.tunnelServer.credential(), credential);
  const stack = (names: string[]) => names.filter((n) => /^relay-(panel|auth-portal|tunnel-server)-/.test(n)).sort();
  const expected = [`relay-auth-portal-auth.${TEST_DOMAIN}.conf`, `relay-panel-panel.${TEST_DOMAIN}.conf`, `relay-tunnel-server-tunnel.${TEST_DOMAIN}.conf`];
  assert.equal(stack(await readdir(join(infra.nginxPrefix, 'sites-available'))), expected);
  assert.equal(stack(await readdir(join(infra.nginxPrefix, 'sites-enabled'))), expected);
  await run('/usr/sbin/nginx', ['-t', '-p', infra.nginxPrefix, '-c', 'nginx.conf']);
}));

s.run();
