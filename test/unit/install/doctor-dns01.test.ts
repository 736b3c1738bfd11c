// Doctor in wildcard mode: the plugin package and the credentials file the renewals need.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { PER_NAME, type CertificateModeRecord } from '../../../lib/certs/dns01/mode.ts';
import { dns01Findings, type Dns01Probe } from '../../../lib/install/doctor-dns01.ts';

const s = suite('doctor: the wildcard mode');
const WILDCARD: CertificateModeRecord = { mode: 'wildcard', provider: 'cloudflare', lineage: 'relay.test', propagationSeconds: null, keysSet: ['apiToken'] };
const probe = (over: Partial<Dns01Probe> = {}): Dns01Probe => ({ installed: async () => true, fileOf: async () => ({ mode: 0o600, uid: 990 }), panelUid: 990, ...over });

s('per-name mode: nothing to check', async () => {
  assert.equal(await dns01Findings({ certificateMode: PER_NAME, dataDir: '/var/lib/relay-panel' }, probe()), []);
});

s('wildcard mode with the plugin and a 0600 file of the panel\'s user: ok', async () => {
  const findings = await dns01Findings({ certificateMode: WILDCARD, dataDir: '/var/lib/relay-panel' }, probe());
  assert.equal(findings.map((f) => f.ok), [true, true]);
  assert.match(findings[1]!.message, '/var/lib/relay-panel/dns01/cloudflare.ini');
});

s('a missing plugin, a missing file (a restore), a loose mode or a foreign owner: named with the fix', async () => {
  const config = { certificateMode: WILDCARD, dataDir: '/d' };
  const [plugin] = await dns01Findings(config, probe({ installed: async () => false }));
  assert.equal(plugin, { ok: false, message: 'python3-certbot-dns-cloudflare is not installed: the wildcard certificate relay.test cannot renew', fix: 'apt-get install python3-certbot-dns-cloudflare' });
  const [, missing] = await dns01Findings(config, probe({ fileOf: async () => null }));
  assert.is(missing!.ok, false);
  assert.match(missing!.fix!, 'enter the cloudflare credentials again');
  assert.is((await dns01Findings(config, probe({ fileOf: async () => ({ mode: 0o644, uid: 990 }) })))[1]!.ok, false);
  assert.is((await dns01Findings(config, probe({ fileOf: async () => ({ mode: 0o600, uid: 0 }) })))[1]!.ok, false);
});

s.run();
