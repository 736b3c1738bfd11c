import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { isPublicHost } from '../../../lib/tickets/host-check.ts';
import type { TestApp } from '../../helpers/app.ts';
import { INSTANCE_BODY, addAgents, agent, registerChatScope, ticketApp } from './fixtures.ts';

const s = suite('tickets: SSRF host check');

const BLOCKED: Record<string, string[]> = {
  'private 10.0.0.0/8': ['10.0.0.1', '10.255.255.255', '012.0.0.1', '0xa.0.0.1', '167772161'],
  'private 172.16.0.0/12': ['172.16.0.1', '172.31.255.255', '0xac.0x10.0.1'],
  'private 192.168.0.0/16': ['192.168.1.1', '0xc0.0xa8.1.1', '3232235777', '0300.0250.1.1'],
  'link-local 169.254.0.0/16': ['169.254.0.1', '169.254.255.255'],
  'loopback': ['127.0.0.1', '127.255.255.254', 'localhost', 'LOCALHOST', 'localhost.', 'LocalHost.', 'app.localhost', '::1', '[::1]', '0:0:0:0:0:0:0:1', '[0000::0001]'],
  'decimal, octal and hex IPv4': ['2130706433', '017700000001', '0177.0.0.1', '0177.0000.0000.0001', '0x7f.0.0.1', '0x7f000001', '0X7F.1', '127.1', '127.0.1', '127.0.0.1.', '127%2e0.0.1', '１２７.０.０.１'],
  'zero network 0.0.0.0/8': ['0.0.0.0', '0', '0x0', '0.1.2.3', '::', '[::]'],
  'cloud metadata': ['169.254.169.254', '0xa9fea9fe', '2852039166', '0251.0376.0251.0376', 'metadata.google.internal', 'METADATA.GOOGLE.INTERNAL', 'metadata.google.internal.', 'metadata', 'metadata.goog', 'instance-data.ec2.internal', 'fd00:ec2::254', '100.100.100.200'],
  'IPv4-mapped IPv6': ['::ffff:127.0.0.1', '[::ffff:127.0.0.1]', '::ffff:7f00:1', '::FFFF:10.0.0.1', '::ffff:169.254.169.254', '0:0:0:0:0:ffff:192.168.0.1', '::ffff:0:127.0.0.1'],
  'IPv4-compatible IPv6': ['::127.0.0.1', '::10.0.0.1', '::a9fe:a9fe', '::169.254.169.254'],
  'IPv6 link-local fe80::/10': ['fe80::1', 'FE80::1', 'fe80::abcd:1234', 'febf::1', '[fe80::1]'],
  'IPv6 unique local fc00::/7': ['fc00::1', 'fd12:3456::1', 'FDFF::1'],
  'IPv4 embedded by NAT64 and 6to4': ['64:ff9b::127.0.0.1', '2002:7f00:1::', '2002:a9fe:a9fe::1'],
  'unparseable or not a host': ['', ' ', '1.2.3.256', 'evil.com@127.0.0.1', 'example.com/path', 'example.com:80', 'fe80::1%eth0', 'a b.com'],
};
const PUBLIC = ['8.8.8.8', '1.1.1.1', '203.0.113.10', '172.32.0.1', '172.15.255.255', '192.169.0.1', '169.253.1.1', 'example.com', 'Relay.Example.COM', 'example.com.', 'agent-1.relay.example.org', '2001:4860:4860::8888', '[2606:4700::1111]', '::ffff:8.8.8.8'];

for (const [kind, hosts] of Object.entries(BLOCKED)) {
  s(`rejected: ${kind}`, () => {
    for (const host of hosts) assert.is(isPublicHost(host), false, host);
  });
}

s('accepted: public names and addresses', () => {
  for (const host of PUBLIC) assert.is(isPublicHost(host), true, host);
});

s('through POST /api/tickets/instances: 400 for a private direct host, 201 for a public one', async () => {
  const { t } = await ticketApp();
  try {
    await addAgents(t, ['alice']);
    await registerChatScope(t);
    const register = (host: string) => registerWith(t, host);
    for (const host of ['127.0.0.1', '2130706433', '[::ffff:127.0.0.1]', 'metadata.google.internal.', 'LOCALHOST', '169.254.169.254', 'fe80::1']) {
      const { status, body } = await register(host);
      assert.is(status, 400, host);
      assert.equal(body, { error: 'Private or reserved address in transport.direct.host' });
    }
    assert.is((await register('relay.example.com')).status, 201);
  } finally {
    await t.close();
  }
});

function registerWith(t: TestApp, host: string) {
  const body = { ...INSTANCE_BODY, transport: { ...INSTANCE_BODY.transport, direct: { host, port: 8443 } } };
  return t.call('POST', '/api/tickets/instances', { as: agent('alice'), body });
}

s.run();
