// doctor's traffic finding: the kernel's drops on the traffic port are a problem with the fix to
// raise net.core.rmem_max; none, no socket or no traffic log are not, and each names what the port holds.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { trafficFindings, udpDrops, type TrafficProbe } from '../../../lib/install/traffic-doctor.ts';

const s = suite('doctor: the traffic port');

const HEADER = '   sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode ref pointer drops';
/** a /proc/net/udp row of a socket bound to 127.0.0.1:`port` that the kernel dropped `drops` datagrams on */
const row = (sl: number, port: number, drops: number) =>
  `  ${sl}: 0100007F:${port.toString(16).toUpperCase().padStart(4, '0')} 00000000:0000 07 00000000:00000000 00:00000000 00000000   998        0 41${sl} 2 0000000000000000 ${drops}`;
const probe = (tables: string[], cap: number | null): TrafficProbe => ({ udpTables: async () => tables, rmemMax: async () => cap });

s('udpDrops reads the drops column of the socket on the port, and no other', () => {
  const table = [HEADER, row(0, 53, 7), row(1, 3101, 12), row(2, 31010, 5)].join('\n');
  assert.is(udpDrops([table], 3101), 12);
  assert.is(udpDrops([table], 53), 7);
  assert.is(udpDrops([table], 3102), null, 'no socket on the port');
  assert.is(udpDrops([HEADER, `${HEADER}\n${row(0, 3101, 2)}`], 3101), 2, 'over udp and udp6');
});

s('lines the kernel dropped are a problem, and the fix raises net.core.rmem_max for good', async () => {
  const f = await trafficFindings(3101, 'relay-panel', probe([[HEADER, row(0, 3101, 40)].join('\n')], 212_992));
  assert.is(f.ok, false);
  assert.match(f.message, 'dropped 40 traffic lines on port 3101');
  // the default cap, doubled, at 1,280 bytes a line
  assert.match(f.message, 'about 332 lines');
  assert.match(f.fix ?? '', /\/etc\/sysctl\.d\/60-relay-panel-traffic\.conf && sysctl --load .* && systemctl restart relay-panel$/);
});

s('no drop, no socket or no traffic log: no problem, and what the port holds is named', async () => {
  const none = await trafficFindings(3101, 'relay-panel', probe([[HEADER, row(0, 3101, 0)].join('\n')], 4 * 1024 * 1024));
  assert.is(none.ok, true);
  assert.match(none.message, 'no traffic line dropped');
  assert.match(none.message, `about ${Math.floor((8 * 1024 * 1024) / 1280)} lines`);
  const huge = await trafficFindings(3101, 'relay-panel', probe([[HEADER, row(0, 3101, 0)].join('\n')], 64 * 1024 * 1024));
  assert.match(huge.message, `about ${Math.floor((8 * 1024 * 1024) / 1280)} lines`, 'the panel asks 4 MiB, whatever the cap above it');
  const down = await trafficFindings(3101, 'relay-panel', probe([HEADER], 212_992));
  assert.is(down.ok, true);
  assert.match(down.message, 'no socket on the traffic port 3101');
  const off = await trafficFindings(null, 'relay-panel', probe([], null));
  assert.equal(off, { ok: true, message: 'no traffic log (nginx.trafficPort is off)' });
});

s.run();
