import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { isPublicHost } from '../../../lib/host-class.ts';

// NAT64 (local-use), Teredo, 198.18.0.0/15, 192.0.0.0/24, `.svc` names and the
// relay's own domain were accepted. The table covers every IANA special-purpose range and the
// spellings the adversarial review and the earlier tests used.

const s = suite('host class: the SSRF check of ticket direct hosts and alert webhooks');

const RELAY_DOMAIN = 'relay.example.net';

const REFUSED: Record<string, string[]> = {
  'private 10.0.0.0/8': ['10.0.0.1', '10.255.255.255', '012.0.0.1', '0xa.0.0.1', '167772161'],
  'private 172.16.0.0/12': ['172.16.0.1', '172.31.255.255', '0xac.0x10.0.1'],
  'private 192.168.0.0/16': ['192.168.1.1', '0xc0.0xa8.1.1', '3232235777', '0300.0250.1.1'],
  'link-local 169.254.0.0/16': ['169.254.0.1', '169.254.255.255'],
  loopback: ['127.0.0.1', '127.255.255.254', 'localhost', 'LOCALHOST', 'localhost.', 'LocalHost.', 'app.localhost', '::1', '[::1]', '0:0:0:0:0:0:0:1', '[0000::0001]'],
  'decimal, octal and hex IPv4': ['2130706433', '017700000001', '0177.0.0.1', '0177.0000.0000.0001', '0x7f.0.0.1', '0x7f000001', '0X7F.1', '127.1', '127.0.1', '127.0.0.1.', '127%2e0.0.1', '１２７.０.０.１'],
  'zero network 0.0.0.0/8': ['0.0.0.0', '0', '0x0', '0.1.2.3', '::', '[::]'],
  'cloud metadata': ['169.254.169.254', '0xa9fea9fe', '2852039166', '0251.0376.0251.0376', 'metadata.google.internal', 'METADATA.GOOGLE.INTERNAL', 'metadata.google.internal.', 'metadata', 'metadata.goog', 'instance-data.ec2.internal', 'metadata.azure.com', 'metadata.tencentyun.com', 'fd00:ec2::254', '100.100.100.200'],
  'IANA IPv4 special-purpose': [
    '100.64.0.1', // shared address space
    '192.0.0.1', // IETF protocol assignments
    '192.0.0.8',
    '192.0.0.170',
    '192.0.2.1', // TEST-NET-1
    '198.51.100.7', // TEST-NET-2
    '203.0.113.10', // TEST-NET-3
    '198.18.0.1', // benchmarking
    '198.19.255.254',
    '192.88.99.1', // 6to4 relay anycast
    '192.31.196.1', // AS112
    '192.175.48.1',
    '192.52.193.1', // AMT
    '240.0.0.1', // reserved
    '255.255.255.255', // limited broadcast
    '224.0.0.1', // multicast
    '239.255.255.250',
  ],
  'IPv4-mapped and -translated IPv6': ['::ffff:127.0.0.1', '[::ffff:127.0.0.1]', '::ffff:7f00:1', '::FFFF:10.0.0.1', '::ffff:169.254.169.254', '0:0:0:0:0:ffff:192.168.0.1', '::ffff:0:127.0.0.1', '::ffff:198.18.0.1'],
  'IPv4-compatible IPv6 (deprecated ::/96)': ['::127.0.0.1', '::10.0.0.1', '::a9fe:a9fe', '::169.254.169.254', '::8.8.8.8'],
  'NAT64 64:ff9b::/96 embedding a blocked IPv4': ['64:ff9b::127.0.0.1', '64:ff9b::7f00:1', '64:ff9b::a9fe:a9fe', '64:ff9b::10.1.2.3'],
  'NAT64 local-use 64:ff9b:1::/48': ['64:ff9b:1::7f00:1', '64:ff9b:1::808:808', '64:ff9b:1:ffff::1'],
  '6to4 2002::/16 embedding a blocked IPv4': ['2002:7f00:1::', '2002:a9fe:a9fe::1', '2002:c0a8:101::1', '2002::1'],
  'Teredo 2001::/32 with a blocked client or server': [
    '2001:0:4136:e378:8000:63bf:80ff:fffe', // client 127.0.0.1
    '2001:0:4136:e378:8000:63bf:f5ff:fffe', // client 10.0.0.1
    '2001:0:4136:e378:8000:63bf:5601:5601', // client 169.254.169.254
    '2001:0:7f00:1:8000:63bf:f7f7:f7f7', // server 127.0.0.1
  ],
  'IANA IPv6 special-purpose': [
    '100::1', // discard-only
    '100:0:0:1::1', // dummy prefix
    '2001:1::1', // PCP anycast
    '2001:2::1', // benchmarking
    '2001:3::1', // AMT
    '2001:4:112::1', // AS112
    '2001:10::1', // ORCHID
    '2001:20::1', // ORCHIDv2
    '2001:30::1', // drone remote ID
    '2001:db8::1', // documentation
    '3fff::1', // documentation (RFC 9637)
    '5f00::1', // segment routing
    '2620:4f:8000::1', // AS112
    'fe80::1', 'FE80::1', 'fe80::abcd:1234', 'febf::1', '[fe80::1]', // link-local
    'fec0::1', // site-local
    'fc00::1', 'fd12:3456::1', 'FDFF::1', // unique local
    'ff02::1', 'ff05::1:3', // multicast
  ],
  'special-use names': ['kubernetes.default.svc', 'KUBERNETES.DEFAULT.SVC.', 'api.ns.svc', 'kubernetes.default.svc.cluster.local', 'printer.local', 'db.internal', 'router.home.arpa', 'foo.bar.localhost', 'intranet'],
  "the relay's own domain and its subdomains": [RELAY_DOMAIN, 'RELAY.EXAMPLE.NET', `${RELAY_DOMAIN}.`, `panel.${RELAY_DOMAIN}`, `auth.${RELAY_DOMAIN}`, `tunnel.${RELAY_DOMAIN}`, `a.b.${RELAY_DOMAIN}`],
  'unparseable or not a host': ['', ' ', '1.2.3.256', 'evil.com@127.0.0.1', 'example.com/path', 'example.com:80', 'fe80::1%eth0', 'a b.com', '[::1', '::1]', '1:2:3:4:5:6:7:8:9', 'http://example.com', 'example.com?x', 'example.com#x', 'back\\slash.com'],
};

const ACCEPTED = [
  '8.8.8.8',
  '1.1.1.1',
  '172.32.0.1',
  '172.15.255.255',
  '192.169.0.1',
  '169.253.1.1',
  '100.63.255.255',
  '100.128.0.1',
  '198.17.255.255',
  '198.20.0.1',
  '192.0.1.1',
  '223.255.255.254',
  '0x08.0x08.0x08.0x08',
  '134744072',
  'example.com',
  'Relay.Example.COM',
  'example.com.',
  'agent-1.relay.example.org',
  'notrelay.example.net',
  'example.net',
  'svc.example.com',
  'local.example.com',
  'xn--caf-dma.example',
  '2001:4860:4860::8888',
  '[2606:4700::1111]',
  '2a00:1450:4001::200e',
  '::ffff:8.8.8.8',
  '64:ff9b::808:808',
  '64:ff9b::8.8.8.8',
  '2002:808:808::1',
  '2001:0:4136:e378:8000:63bf:f7f7:f7f7', // Teredo, client 8.8.8.8
];

const refusedCount = Object.values(REFUSED).flat().length;

s('the table holds at least 100 spellings', () => {
  assert.ok(refusedCount + ACCEPTED.length >= 100, `${refusedCount + ACCEPTED.length}`);
});

for (const [kind, hosts] of Object.entries(REFUSED)) {
  s(`refused: ${kind}`, () => {
    for (const host of hosts) assert.is(isPublicHost(host, RELAY_DOMAIN), false, host);
  });
}

s('accepted: public names and addresses', () => {
  for (const host of ACCEPTED) assert.is(isPublicHost(host, RELAY_DOMAIN), true, host);
});

s('before onboarding (no domain) only the relay-domain rule is off', () => {
  assert.is(isPublicHost(`panel.${RELAY_DOMAIN}`, null), true);
  assert.is(isPublicHost('kubernetes.default.svc', null), false);
});

s.run();
