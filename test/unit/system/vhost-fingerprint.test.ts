// The template fingerprint is worked out once per set of inputs in a process, and each input still
// changes it: the ports, a path of the layout, the PKI directory, a certificate path, and for a
// sandbox the directory it lies in.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { relocatableVhostFingerprinter, vhostFingerprinter, type FingerprintOptions } from '../../../lib/system/proxy/fingerprint.ts';

const vhostFingerprint = (o: FingerprintOptions, pkiDir: string) => vhostFingerprinter(o, pkiDir).render();
const relocatableVhostFingerprint = (o: FingerprintOptions, pkiDir: string, root: string) => relocatableVhostFingerprinter(o, pkiDir, root).render();

function options(root: string, over: Partial<FingerprintOptions> = {}): FingerprintOptions & { certCalls: string[] } {
  const certCalls: string[] = [];
  return {
    listenAddress: '127.0.0.1',
    ports: { http: 80, https: 443, ipPanel: 9292, panel: 3100, tunnelServer: 9090, authPortal: 9091 },
    acmeWebroot: `${root}/acme`,
    helpDir: `${root}/help`,
    selfSignedDir: `${root}/self`,
    routesDir: `${root}/routes`,
    sniDir: `${root}/sni`,
    publicLocations: { exact: ['/api/health'], prefix: ['/api/invite/'] },
    trafficPort: null,
    certs: {
      paths(fqdn) {
        certCalls.push(fqdn);
        return { fullchain: `${root}/live/${fqdn}/fullchain.pem`, privkey: `${root}/live/${fqdn}/privkey.pem` };
      },
    },
    certCalls,
    ...over,
  };
}

const s = suite('vhost template fingerprint');

s('the same inputs give the same fingerprint, from fresh objects', () => {
  assert.is(vhostFingerprint(options('/box'), '/box/pki'), vhostFingerprint(options('/box'), '/box/pki'));
});

s('each input changes it', () => {
  const base = vhostFingerprint(options('/box'), '/box/pki');
  const changed = [
    vhostFingerprint(options('/box', { ports: { http: 80, https: 8443, ipPanel: 9292, panel: 3100, tunnelServer: 9090, authPortal: 9091 } }), '/box/pki'),
    vhostFingerprint(options('/box', { helpDir: '/elsewhere/help' }), '/box/pki'),
    vhostFingerprint(options('/box', { routesDir: '/elsewhere/routes' }), '/box/pki'),
    vhostFingerprint(options('/box', { sniDir: '/elsewhere/sni' }), '/box/pki'),
    vhostFingerprint(options('/box', { acmeWebroot: '/elsewhere/acme' }), '/box/pki'),
    vhostFingerprint(options('/box', { selfSignedDir: '/elsewhere/self' }), '/box/pki'),
    vhostFingerprint(options('/box', { listenAddress: '10.0.0.1' }), '/box/pki'),
    vhostFingerprint(options('/box', { trafficPort: 5140 }), '/box/pki'),
    vhostFingerprint(options('/box', { publicLocations: { exact: ['/api/health', '/api/enroll'], prefix: [] } }), '/box/pki'),
    vhostFingerprint(options('/box', { certs: { paths: (n) => ({ fullchain: `/le/${n}/fullchain.pem`, privkey: `/le/${n}/privkey.pem` }) } }), '/box/pki'),
    vhostFingerprint(options('/box'), '/other/pki'),
  ];
  for (const f of changed) assert.is.not(f, base);
  assert.is(new Set(changed).size, changed.length);
});

s('a sandbox fingerprint differs by the directory it lies in, and by the layout under it', () => {
  const a = relocatableVhostFingerprint(options('/tmp/kit-a'), '/tmp/kit-a/pki', '/tmp/kit-a');
  const b = relocatableVhostFingerprint(options('/tmp/kit-b'), '/tmp/kit-b/pki', '/tmp/kit-b');
  assert.is.not(a, b);
  assert.is(relocatableVhostFingerprint(options('/tmp/kit-a'), '/tmp/kit-a/pki', '/tmp/kit-a'), a);
  assert.is.not(relocatableVhostFingerprint(options('/tmp/kit-a', { helpDir: '/tmp/kit-a/help2' }), '/tmp/kit-a/pki', '/tmp/kit-a'), a);
  assert.is.not(relocatableVhostFingerprint(options('/tmp/kit-a', { sniDir: '/tmp/kit-a/sni2' }), '/tmp/kit-a/pki', '/tmp/kit-a'), a);
  assert.is.not(relocatableVhostFingerprint(options('/tmp/kit-a'), '/tmp/kit-a/pki2', '/tmp/kit-a'), a);
  assert.is.not(relocatableVhostFingerprint(options('/tmp/kit-a', { trafficPort: 5140 }), '/tmp/kit-a/pki', '/tmp/kit-a'), a);
});

s('a sandbox in another directory reuses the render: its certificates are asked, nothing is rendered', () => {
  // the first call of a layout may render; a second directory with the same layout must give a
  // fingerprint of its own without a render, seen as its certificate paths asked once per sample name only
  relocatableVhostFingerprint(options('/tmp/kit-c'), '/tmp/kit-c/pki', '/tmp/kit-c');
  const d = options('/tmp/kit-d');
  const fd = relocatableVhostFingerprint(d, '/tmp/kit-d/pki', '/tmp/kit-d');
  assert.is(new Set(d.certCalls).size, d.certCalls.length);
  assert.ok(d.certCalls.includes('fingerprint.invalid'));
  assert.is.not(fd, relocatableVhostFingerprint(options('/tmp/kit-c'), '/tmp/kit-c/pki', '/tmp/kit-c'));
});

s.run();
