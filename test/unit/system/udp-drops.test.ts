// The drops column of the kernel's UDP tables, read by the same parser as the sockets' addresses.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { parseUdpSocketDrops, parseUdpSockets } from '../../../lib/system/common/proc-net.ts';

const s = suite('/proc/net/udp: each socket\'s drops');

const HEADER = '   sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode ref pointer drops';
const UDP = [
  HEADER,
  '  1: 0100007F:0C1D 00000000:0000 07 00000000:00000000 00:00000000 00000000   998        0 4101 2 0000000000000000 12',
  '  2: 00000000:0035 00000000:0000 07 00000000:00000000 00:00000000 00000000     0        0 4102 2 0000000000000000 0',
].join('\n');
const UDP6 = [
  HEADER,
  '  3: 00000000000000000000000001000000:0C1D 00000000000000000000000000000000:0000 07 00000000:00000000 00:00000000 00000000 998 0 4103 2 0000000000000000 3',
].join('\n');

s('each socket with its address, port and the kernel\'s drops, in both tables', () => {
  assert.equal(parseUdpSocketDrops(UDP, 'LE'), [{ host: '127.0.0.1', port: 3101, drops: 12 }, { host: '0.0.0.0', port: 53, drops: 0 }]);
  assert.equal(parseUdpSocketDrops(UDP6, 'LE'), [{ host: '[::1]', port: 3101, drops: 3 }]);
  // the sockets are the ones parseUdpSockets sees
  assert.equal(parseUdpSocketDrops(UDP, 'LE').map(({ host, port }) => ({ host, port })), parseUdpSockets(UDP, 'LE'));
});

s('a row cut short or with no number in its last column counts no drops', () => {
  const cut = `${HEADER}\n  1: 0100007F:0C1D 00000000:0000 07 00000000:00000000`;
  assert.equal(parseUdpSocketDrops(cut, 'LE'), []);
  assert.equal(parseUdpSocketDrops(UDP.replace(/ 12$/m, ' x'), 'LE'), [{ host: '0.0.0.0', port: 53, drops: 0 }]);
  assert.equal(parseUdpSocketDrops(HEADER), []);
});

s.run();
