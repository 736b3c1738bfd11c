// The kernel's TCP tables: every listener with its real address (IPv4 and IPv6, a wildcard apart
// from a specific address), in either byte order, read from a /proc given to the reader.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { loopbackListening } from '../../../lib/system/tunnel-server/loopback-listeners.ts';
import { kernelSocketTables, readTcpListeners } from '../../../lib/system/common/tcp-listeners.ts';
import { canonicalHost, hostPort, parseTcpListeners } from '../../../lib/system/common/proc-net.ts';

const s = suite('/proc/net/tcp and tcp6 listeners');

const HEAD4 = '  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode';
const HEAD6 = '  sl  local_address                         remote_address                        st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode';
const row = (i: number, local: string, state: string, remote = local.replace(/[0-9A-F]/g, '0')) =>
  `   ${i}: ${local} ${remote} ${state} 00000000:00000000 00:00000000 00000000     0        0 ${1000 + i} 1 0000000000000000 100 0 0 10 0`;

/** As a little-endian machine (x86-64, arm64) prints them. */
const TCP = [HEAD4,
  row(0, '00000000:244C', '0A'), // 0.0.0.0:9292
  row(1, '0100007F:0C1C', '0A'), // 127.0.0.1:3100
  row(2, '0A00000A:01BB', '0A'), // 10.0.0.10:443
  row(3, '0100007F:0C1C', '01', '0100007F:C350'), // an established connection to the panel
  row(4, '0100007F:1F90', '06'), // TIME_WAIT
].join('\n');
const TCP6 = [HEAD6,
  row(0, '00000000000000000000000000000000:01BB', '0A'), // [::]:443
  row(1, '00000000000000000000000001000000:0C1D', '0A'), // [::1]:3101
  row(2, '0000000000000000FFFF00000100007F:1F91', '0A'), // [::ffff:127.0.0.1]:8081
  row(3, 'B80D0120000000000000000005000000:01BB', '0A'), // [2001:db8::5]:443
  row(4, 'B80D0120000000000000000005000000:D431', '01', 'B80D0120000000000000000006000000:01BB'),
].join('\n');

s('IPv4: the wildcard, loopback and a specific address, each with its port; only LISTEN rows', () => {
  assert.equal(parseTcpListeners(TCP, 'LE'), [
    { host: '0.0.0.0', port: 9292 },
    { host: '127.0.0.1', port: 3100 },
    { host: '10.0.0.10', port: 443 },
  ]);
});

s('IPv6: ::, ::1, a v4-mapped and a global address, written as a URL writes a host', () => {
  assert.equal(parseTcpListeners(TCP6, 'LE'), [
    { host: '[::]', port: 443 },
    { host: '[::1]', port: 3101 },
    { host: '[::ffff:7f00:1]', port: 8081 },
    { host: '[2001:db8::5]', port: 443 },
  ]);
});

s('a big-endian machine prints the words in network order: the same addresses', () => {
  const be = [HEAD4, row(0, '7F000001:0C1C', '0A'), row(1, '0A00000A:01BB', '0A')].join('\n');
  assert.equal(parseTcpListeners(be, 'BE'), [{ host: '127.0.0.1', port: 3100 }, { host: '10.0.0.10', port: 443 }]);
  const be6 = [HEAD6, row(0, '20010DB8000000000000000000000005:01BB', '0A')].join('\n');
  assert.equal(parseTcpListeners(be6, 'BE'), [{ host: '[2001:db8::5]', port: 443 }]);
  // read in the wrong order, 127.0.0.1 would be 1.0.0.127: the order matters
  assert.equal(parseTcpListeners(be, 'LE')[0], { host: '1.0.0.127', port: 3100 });
});

s('rows that are not a socket are skipped: an empty table, a short line, a broken address', () => {
  assert.equal(parseTcpListeners(HEAD4), []);
  assert.equal(parseTcpListeners(''), []);
  assert.equal(parseTcpListeners([HEAD4, '   0: 0100007F', row(1, 'ZZ00007F:0C1C', '0A'), row(2, '01007F:0C1C', '0A')].join('\n')), []);
});

s('addresses compare in one form: a configured address in any spelling, brackets or not', () => {
  assert.is(canonicalHost('0.0.0.0'), '0.0.0.0');
  assert.is(canonicalHost('127.1'), '127.0.0.1');
  assert.is(canonicalHost('::'), '[::]');
  assert.is(canonicalHost('[0:0:0:0:0:0:0:0]'), '[::]');
  assert.is(canonicalHost('2001:DB8:0:0:0:0:0:5'), '[2001:db8::5]');
  assert.is(canonicalHost('localhost'), null);
  assert.is(canonicalHost('300.1.1.1'), null);
  assert.is(hostPort('::1', 3100), '[::1]:3100');
  assert.is(hostPort('localhost', 3100), 'localhost:3100');
});

s('the reader takes a /proc of fixture files: both tables, tcp alone (IPv6 off), neither (null)', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'relay-proc-'));
  try {
    assert.is(await readTcpListeners(dir), null);
    await mkdir(join(dir, 'net'));
    await writeFile(join(dir, 'net/tcp'), TCP);
    assert.equal((await readTcpListeners(dir))!.map((l) => `${l.host}:${l.port}`), ['0.0.0.0:9292', '127.0.0.1:3100', '10.0.0.10:443']);
    await writeFile(join(dir, 'net/tcp6'), TCP6);
    assert.is((await readTcpListeners(dir))!.length, 7);
    // the loopback view reads the same tables: 10.0.0.10 and ::1 are not reached from 127.0.0.1
    assert.equal([...(await loopbackListening([9292, 3100, 443, 3101, 8081], kernelSocketTables(dir)))].sort(), [3100, 443, 8081, 9292]);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

s('this machine: a listener the test opens is in the real tables with its address', async () => {
  const { createServer } = await import('node:net');
  const server = createServer();
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  try {
    const port = (server.address() as { port: number }).port;
    assert.equal((await readTcpListeners())!.filter((l) => l.port === port), [{ host: '127.0.0.1', port }]);
  } finally {
    server.close();
  }
});

s.run();
