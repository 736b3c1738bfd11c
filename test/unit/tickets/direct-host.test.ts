import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { TestApp } from '../../../lib/testing.ts';
import { INSTANCE_BODY, addAgents, agent, registerChatScope, ticketApp } from './fixtures.ts';

// The direct host of a ticket instance goes through lib/host-class.ts (its table of spellings is
// test/unit/lib/host-class.test.ts): a refused one is the route's 400.

const s = suite('tickets: SSRF host check on POST /api/tickets/instances');

s('through POST /api/tickets/instances: 400 for a refused direct host, 201 for a public one', async () => {
  const { t } = await ticketApp();
  try {
    await addAgents(t, ['alice']);
    await registerChatScope(t);
    const domain = t.services.config.value.domain;
    for (const host of ['127.0.0.1', '2130706433', '[::ffff:127.0.0.1]', 'metadata.google.internal.', 'LOCALHOST', '169.254.169.254', 'fe80::1', '64:ff9b:1::7f00:1', '2001:0:4136:e378:8000:63bf:80ff:fffe', '198.18.0.1', '192.0.0.1', 'kubernetes.default.svc', `panel.${domain}`]) {
      const { status, body } = await registerWith(t, host);
      assert.is(status, 400, host);
      assert.equal(body, { error: 'Private or reserved address in transport.direct.host' });
    }
    assert.is((await registerWith(t, 'relay.example.com')).status, 201);
  } finally {
    await t.close();
  }
});

function registerWith(t: TestApp, host: string) {
  const body = { ...INSTANCE_BODY, transport: { ...INSTANCE_BODY.transport, direct: { host, port: 8443 } } };
  return t.call('POST', '/api/tickets/instances', { as: agent('alice'), body });
}

s.run();
