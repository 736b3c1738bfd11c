import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { checkArch, checkOs, chooseIp, parseOsRelease } from '../../../lib/install/host-checks.ts';

// a named suite of its own: uvu's shared default `test` would mix the files a worker runs
const test = suite('installer host checks');

const debian12 = 'PRETTY_NAME="Debian GNU/Linux 12 (bookworm)"\nNAME="Debian GNU/Linux"\nVERSION_ID="12"\nID=debian\n';

test('Debian 12+ and Ubuntu 22.04+ pass; older or other systems are refused with the fix', () => {
  assert.is(checkOs(parseOsRelease(debian12)), 'Debian GNU/Linux 12 (bookworm)');
  assert.ok(checkOs(parseOsRelease('ID=ubuntu\nVERSION_ID="24.04"\n')));
  assert.ok(checkOs(parseOsRelease("ID=ubuntu\nVERSION_ID='22.04'\n")));
  for (const text of ['ID=debian\nVERSION_ID="11"\n', 'ID=ubuntu\nVERSION_ID="20.04"\n', 'ID=fedora\nVERSION_ID=40\n', '']) {
    assert.throws(() => checkOs(parseOsRelease(text)), /unsupported system/);
  }
});

test('x64 and arm64 only', () => {
  assert.is(checkArch('x64'), 'x64');
  assert.is(checkArch('arm64'), 'arm64');
  assert.throws(() => checkArch('ia32'), /unsupported architecture/);
});

test('the address: --ip wins (normalized), else the first public IPv4 of an interface; never the internet', () => {
  const iface = (address: string, internal = false) => ({ address, internal, family: 'IPv4' as const, netmask: '', mac: '', cidr: null });
  assert.is(chooseIp('2001:db8:0::1'), '2001:db8::1');
  assert.throws(() => chooseIp('10.0.0.300'), /not an IP address/);
  assert.is(chooseIp(undefined, { lo: [iface('127.0.0.1', true)], eth0: [iface('10.0.0.5'), iface('93.184.216.34')] }), '93.184.216.34');
  assert.throws(() => chooseIp(undefined, { lo: [iface('127.0.0.1', true)], eth0: [iface('192.168.1.2')] }), /no public IPv4/);
});

test.run();
