// Vhost file names of long names (lib/system/proxy/vhost-file-name.ts): what fits keeps the form
// every release wrote; longer names are cut to what the store can write, with a hash of the name.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { assertFileName, MAX_FILE_NAME } from '../../../lib/system/common/names.ts';
import { isVhostName, isVhostNameOfKind, vhostName } from '../../../lib/system/proxy/templates.ts';

const s = suite('vhost file names of long names');

const label = (c: string) => c.repeat(63);
/** 253 characters: three labels of 63 and one of 61 */
const longest = (first = 'a') => [label(first), label('b'), label('c'), 'd'.repeat(61)].join('.');

s('a name that fits keeps relay-<kind>-<fqdn>.conf', () => {
  assert.is(vhostName({ kind: 'app', fqdn: 'app.example.com', port: 8080 }), 'relay-app-app.example.com.conf');
  const fits = `${'a'.repeat(63)}.${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(MAX_FILE_NAME - 'relay-app-.conf'.length - 192)}`;
  assert.is(vhostName({ kind: 'app', fqdn: fits, port: 8080 }), `relay-app-${fits}.conf`);
  assert.is(`relay-app-${fits}.conf`.length, MAX_FILE_NAME);
});

s('a longer one: as much of the name as fits and 16 hex digits of its hash, one name\'s alone', () => {
  const one = vhostName({ kind: 'app', fqdn: longest('a'), port: 8080 });
  const other = vhostName({ kind: 'app', fqdn: longest('e'), port: 8080 });
  const sameHead = vhostName({ kind: 'app', fqdn: longest('a').replace(/d$/, 'e'), port: 8080 });
  assert.is(one.length, MAX_FILE_NAME);
  assert.match(one, /^relay-app-a{63}\.b{63}\.c{63}\.d+_[0-9a-f]{16}\.conf$/);
  assert.is.not(one, sameHead, 'names differing past the cut get other hashes');
  assert.is.not(one, other);
  assert.is(vhostName({ kind: 'app', fqdn: longest('a'), port: 9090, shared: true }), one, 'stable: the spec\'s name decides');
  assert.is(assertFileName(one), one, 'the store takes it for enable, disable and remove');
  for (const kind of ['panel', 'auth-portal', 'tunnel-server', 'tunnels', 'site'] as const) {
    const name = kind === 'site'
      ? vhostName({ kind, fqdn: longest(), root: '/srv/x', spaMode: false, protected: false })
      : vhostName({ kind, fqdn: longest() });
    assert.ok(isVhostName(name) && isVhostNameOfKind(name, kind), name);
    assert.is(name.length, MAX_FILE_NAME);
  }
});

s('the root helper takes the shortened form only as vhostName makes it', () => {
  const one = vhostName({ kind: 'app', fqdn: longest(), port: 8080 });
  assert.ok(isVhostName(one));
  assert.not.ok(isVhostName(one.replace(/_[0-9a-f]{16}\.conf$/, '_0123456789ABCDEF.conf')), 'upper-case hex');
  assert.not.ok(isVhostName(one.replace(/d_/, '_')), 'one character short');
  assert.not.ok(isVhostName('relay-app-x_0123456789abcdef.conf'), 'a short name in the shortened form');
  assert.not.ok(isVhostName(one.replace('.b', '/b')), 'a separator');
  assert.not.ok(isVhostName(`relay-app-${longest()}.conf`), 'the whole form past the longest file name');
});

s.run();
