// Least privilege end to end: a box installed by the release, the panel running as its own user
// with the root helper's socket as its only way to root, then the whole onboarding (real dnsmasq,
// pebble + certbot, nginx; fake systemctl, chisel and Authelia downloaded by the installer from a
// loopback server). certbot runs as the panel user; nginx reloads, unit changes and vhosts go
// through the root helper.
import { createPrivateKey } from 'node:crypto';
import { chmod, mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { chiselFingerprint } from '../../../lib/system/tunnel-server/host-key.ts';
import { openStream } from '../../helpers/provision-stream.ts';
import { withTimeout } from '../../helpers/timeout.ts';
import { startFakeHost, type FakeHost } from '../../infra/fake-host.ts';
import { TEST_DOMAIN } from '../../infra/harness.ts';
import { install, ipPanel, startInstalledBox, step, type InstalledBox } from './installed-box.ts';

let box: InstalledBox;
let fakes: FakeHost;
let fakeDir = '';
const s = suite('onboarding as the panel user (fake systemctl, chisel, authelia)');

s.before(async () => {
  fakeDir = await mkdtemp(join(tmpdir(), 'relay-install-fakes-'));
  await chmod(fakeDir, 0o755);
  fakes = await startFakeHost(fakeDir, ['nginx']);
  box = await startInstalledBox(fakes.config, { FAKE_SYSTEMD_STATE: fakes.stateFile });
});
s.after(async () => {
  await box?.close();
  await fakes?.close();
  await rm(fakeDir, { recursive: true, force: true });
});

s('the installed panel, not root, completes onboarding through the root helper', () =>
  withTimeout('onboarding as panel user', 280_000, async () => {
    const run = await install(box, []);
    assert.is(run.code, 0, `${run.stderr}\n${JSON.stringify(run.events, null, 1)}`);
    assert.match(String(step(run, 'units')!.message), 'relay-panel.service');
    const client = { pfx: await readFile(join(box.prefix, 'root/relay-panel-admin.p12')), passphrase: String(step(run, 'summary')!.p12Password) };
    const post = (path: string, body?: unknown) => ipPanel(box, path, client, { method: 'POST', body });

    const domain = await post('/api/onboarding/domain', { domain: TEST_DOMAIN, email: `ops@${TEST_DOMAIN}` });
    assert.is(domain.status, 200, domain.body);
    const dns = await post('/api/onboarding/verify-dns');
    assert.is(dns.status, 200, dns.body);
    const stream = await openStream(box.infra.ports.panel);
    await stream.waitFor((m) => m.type === 'state');
    assert.is((await post('/api/onboarding/provision')).status, 202);
    const last = await withTimeout('provisioning', 240_000, () => stream.waitFor((m) => m.type === 'complete' || m.type === 'error'));
    stream.close();
    assert.is(last.type, 'complete', `${JSON.stringify(last)}\n${await readFile(box.env.FAKE_PANEL_LOG!, 'utf8').catch(() => '')}`);

    const status = await ipPanel(box, '/api/onboarding/status', client);
    assert.is(JSON.parse(status.body).status, 'COMPLETED');
    // what the panel made is its user's (certbot's lineage); the vhosts are root's, written by the helper
    const uid = (await stat(join(box.prefix, 'etc/relay-panel/config.json'))).uid;
    assert.is.not(uid, 0);
    const system = JSON.parse(await readFile(box.systemFile, 'utf8'));
    assert.is((await stat(join(system.acme.configDir, 'archive', `panel.${TEST_DOMAIN}`, 'privkey1.pem'))).uid, uid);
    for (const name of [`relay-panel-panel.${TEST_DOMAIN}.conf`, `relay-auth-portal-auth.${TEST_DOMAIN}.conf`, `relay-tunnel-server-tunnel.${TEST_DOMAIN}.conf`]) {
      assert.is((await stat(join(system.nginx.sitesAvailable, name))).uid, 0, name);
    }
    // nginx's root master loads root's checked copy of the panel's certificate, never the panel's file
    const copy = join(system.nginx.tlsDir, `panel.${TEST_DOMAIN}`, 'privkey.pem');
    assert.match(await readFile(join(system.nginx.sitesAvailable, `relay-panel-panel.${TEST_DOMAIN}.conf`), 'utf8'), `ssl_certificate_key "${copy}";`);
    assert.equal([(await stat(copy)).uid, (await stat(copy)).mode & 0o777], [0, 0o600]);
    // the tunnel server's host key the installer made, the panel's user's, is the one agent-config names
    const key = join(system.chisel.dir, 'host-key.pem');
    assert.equal([(await stat(key)).uid, (await stat(key)).mode & 0o777], [uid, 0o640]);
    const agent = await ipPanel(box, '/api/tunnels/agent-config', client);
    assert.is(agent.status, 200, agent.body);
    assert.is(JSON.parse(agent.body).fingerprint, chiselFingerprint(createPrivateKey(await readFile(key, 'utf8'))));
  }),
);

s.run();
