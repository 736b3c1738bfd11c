import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { isCidr } from '../../../../lib/system/common/cidr.ts';
import { renderStreamServer, streamBlock, streamFileName } from '../../../../lib/system/streams/render.ts';
import { checkPublicPort, pickTunnelPort, servicePorts, type PortUse } from '../../../../lib/tunnels/streams/ports.ts';
import { parseUdpSockets } from '../../../../lib/system/common/proc-net.ts';

const s = suite('stream tunnels: rendering, sources, port rules');

const spec = { protocol: 'tcp' as const, publicPort: 42022, tunnelPort: 61000, allow: [] as string[], proxyProtocol: false };

s('a TCP server: listen, proxy to the tunnel listener, a JSON line per session to the traffic port', () => {
  const text = renderStreamServer(spec, { listenAddress: '0.0.0.0', trafficPort: 9514 });
  assert.match(text, /^ {4}listen 0\.0\.0\.0:42022;$/m);
  assert.match(text, /^ {4}proxy_pass 127\.0\.0\.1:61000;$/m);
  assert.not.match(text, /allow|deny|proxy_protocol on/);
  assert.match(text, /^log_format relay_stream_tcp_42022 escape=json '\{"v":"tcp:42022","s":\$status,"in":\$bytes_received,"out":\$bytes_sent,"t":\$session_time\}';$/m);
  assert.match(text, /access_log syslog:server=127\.0\.0\.1:9514,nohostname,tag=relay relay_stream_tcp_42022;/);
});

s('a UDP server with sources: each allowed, then deny all; the PROXY protocol when asked', () => {
  const text = renderStreamServer({ ...spec, protocol: 'udp', allow: ['203.0.113.0/24', '2001:db8::/32'] }, { listenAddress: '0.0.0.0', trafficPort: null });
  assert.match(text, /listen 0\.0\.0\.0:42022 udp;\n {4}allow 203\.0\.113\.0\/24;\n {4}allow 2001:db8::\/32;\n {4}deny all;\n/);
  assert.match(text, /access_log off;/);
  assert.match(renderStreamServer({ ...spec, proxyProtocol: true }, { listenAddress: '0.0.0.0', trafficPort: null }), /proxy_protocol on;/);
  assert.throws(() => renderStreamServer({ ...spec, allow: ['all'] }, { listenAddress: '0.0.0.0', trafficPort: null }), /not an address/);
  assert.is(streamFileName({ protocol: 'udp', publicPort: 42053 }), 'relay-stream-udp-42053.conf');
  assert.is(streamBlock('/etc/nginx/relay-streams'), 'stream {\n    include /etc/nginx/relay-streams/*.conf;\n}\n');
});

s('sources: addresses and CIDR networks, IPv4 and IPv6, nothing else', () => {
  for (const ok of ['10.0.0.1', '10.0.0.0/8', '0.0.0.0/0', '::1', '2001:db8::/32', '::/0']) assert.ok(isCidr(ok), ok);
  for (const bad of ['', 'all', '10.0.0.0/33', '::/129', '10.0.0.0/8/1', '10.0.0.0/ 8', 'example.com', '10.0.0.0/-1', '1.2.3.4;']) assert.not.ok(isCidr(bad), bad);
});

function use(over: Partial<PortUse> = {}): PortUse {
  return {
    range: { from: 10000, to: 60000 },
    services: servicePorts({ listen: { port: 3100 }, system: { ports: { http: 80, https: 443, ipPanel: 9292, panel: 3100, tunnelServer: 9090, authPortal: 9091 }, nginx: { trafficPort: 9514 } } }),
    tunnels: [],
    streams: [],
    claimed: () => false,
    live: { tcp: new Map(), udp: new Map() },
    ...over,
  };
}

const refusedWith = (u: PortUse, protocol: 'tcp' | 'udp', port: number) => {
  try {
    checkPublicPort(u, protocol, port);
  } catch (e) {
    return (e as Error).message;
  }
  return null;
};

s('public port rules: range, own services, tunnels, claims, live sockets', () => {
  const wide = { range: { from: 1, to: 65535 } };
  assert.is(refusedWith(use(), 'tcp', 9999), 'Public port 9999 is outside the range for TCP and UDP tunnels (10000-60000)');
  assert.is(refusedWith(use(wide), 'tcp', 9090), "Public port 9090 is already in use by the tunnel server's port");
  assert.is(refusedWith(use(wide), 'udp', 9514), "Public port 9514 is already in use by the panel's traffic log port");
  assert.is(refusedWith(use(wide), 'tcp', 22), 'Public port 22 is already in use by SSH');
  assert.is(refusedWith(use({ tunnels: [{ id: 'a', port: 20000, subdomain: 'app' }] }), 'tcp', 20000), 'Public port 20000 is already in use by the HTTP tunnel app');
  const streams = [{ id: 's', protocol: 'udp' as const, publicPort: 20001, tunnelPort: 20002 }];
  assert.is(refusedWith(use({ streams }), 'udp', 20001), 'Public port 20001 is already in use by the UDP tunnel on public port 20001');
  assert.is(refusedWith(use({ streams }), 'tcp', 20001), null);
  assert.is(refusedWith(use({ streams }), 'tcp', 20002), 'Public port 20002 is already in use by the tunnel listener of the UDP tunnel on public port 20001');
  assert.is(refusedWith(use({ claimed: (p) => p === 20003 }), 'tcp', 20003), 'Public port 20003 is already in use by another tunnel being created');
  assert.is(refusedWith(use({ live: { tcp: new Map([[20004, '[::]:20004']]), udp: null } }), 'tcp', 20004), 'Public port 20004 is already in use: a program listens on [::]:20004 (TCP)');
  assert.is(refusedWith(use({ live: { tcp: new Map([[20004, '[::]:20004']]), udp: null } }), 'udp', 20004), null);
});

s('the tunnel listener: the first free port above the range, then below it', () => {
  assert.is(pickTunnelPort(use()), 60001);
  assert.is(pickTunnelPort(use({ streams: [{ id: 's', protocol: 'tcp', publicPort: 20000, tunnelPort: 60001 }], live: { tcp: new Map(), udp: new Map([[60002, '0.0.0.0:60002']]) } })), 60003);
  assert.is(pickTunnelPort(use({ range: { from: 10000, to: 65535 } })), 9999);
  // a range of every port: the top of it, which a public port is given last
  assert.is(pickTunnelPort(use({ range: { from: 1024, to: 65535 } }), new Set([65535])), 65534);
});

s('UDP sockets from /proc/net/udp: every socket holds its port', () => {
  const table = [
    '   sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode ref pointer drops',
    '  100: 0100007F:A4B6 00000000:0000 07 00000000:00000000 00:00000000 00000000     0        0 1 2 0000000000000000 0',
    '  101: 00000000:0035 0100007F:1F90 01 00000000:00000000 00:00000000 00000000     0        0 1 2 0000000000000000 0',
  ].join('\n');
  assert.equal(parseUdpSockets(table, 'LE'), [{ host: '127.0.0.1', port: 42166 }, { host: '0.0.0.0', port: 53 }]);
});

s.run();
