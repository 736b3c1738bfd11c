// Attack: reach a streaming route by its WebSocket handshake where the same request over HTTP would
// be refused: no certificate, a revoked serial in another spelling, an agent without the capability
// or with the admin's common name spoofed in an escaped DN, an admin without the 2FA session.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createTestApp, type TestApp } from '../../../lib/testing.ts';
import { serve } from '../../helpers/http-server.ts';
import { withTimeout } from '../../helpers/timeout.ts';
import { refusedUpgrade } from '../../helpers/websocket.ts';

const s = suite('security: WebSocket handshakes get the HTTP chain');
let t: TestApp;
s.before.each(async () => {
  t = await createTestApp();
});
s.after.each(() => t.close());

s('service logs and the provisioning stream refuse what HTTP refuses', () =>
  withTimeout('ws auth', 8000, async () => {
    const http = await serve(t.app);
    const logs = `ws://127.0.0.1:${http.port}/api/services/proxy/logs`;
    const stream = `ws://127.0.0.1:${http.port}/api/onboarding/provision/stream`;
    try {
      assert.equal(await refusedUpgrade(stream, 'none'), { status: 403, body: { error: 'mTLS certificate required' } });
      await t.addAgent('laptop-1', ['services:read']);
      assert.equal(await refusedUpgrade(stream, { agent: 'laptop-1', serial: t.agentSerial('laptop-1') }), { status: 403, body: { error: 'Insufficient certificate scope' } });
      await t.completeOnboarding();
      await t.addAgent('viewer', []);
      assert.equal(await refusedUpgrade(logs, { agent: 'viewer', serial: t.agentSerial('viewer') }), { status: 403, body: { error: 'Insufficient certificate capability' } });
      // an escaped comma keeps `CN=admin` inside the agent's own common name
      const spoof = { dn: 'CN=agent:viewer\\,CN=admin', serial: t.agentSerial('viewer') };
      assert.equal((await refusedUpgrade(logs, spoof)).status, 403);
      await t.services.store.revocations.update((list) => {
        list.push({ serial: t.agentSerial('laptop-1'), label: 'laptop-1', revokedAt: new Date().toISOString() });
      });
      const lowerPadded = { agent: 'laptop-1', serial: `00${t.agentSerial('laptop-1').toLowerCase()}` };
      assert.equal(await refusedUpgrade(logs, lowerPadded), { status: 403, body: { error: 'Certificate has been revoked' } });
      await t.services.config.update({ panel2fa: { enabled: true, secret: 'JBSWY3DPEHPK3PXP', setupComplete: true } });
      assert.equal(await refusedUpgrade(logs, 'admin'), { status: 401, body: { error: '2fa_required' } });
    } finally {
      await http.close();
    }
  }),
);

s.run();
