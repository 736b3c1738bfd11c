// The credentials each DNS provider takes, checked for shape before anything is written, and the
// file its certbot plugin reads, in the format of the plugin's documentation.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { credentialsText } from '../../../../lib/certs/dns01/credentials-text.ts';
import { CertificateModeUpdate } from '../../../../lib/certs/dns01/mode.ts';
import { DNS_PROVIDERS, PROVIDERS, ProviderCredentials, type DnsProvider } from '../../../../lib/certs/dns01/providers.ts';
import { SAMPLE_CREDENTIALS, SAMPLE_SECRET, SAMPLE_SERVICE_ACCOUNT } from '../../../helpers/dns-credentials.ts';

const s = suite('dns01: provider credentials');

const SECRET = SAMPLE_SECRET;
const SERVICE_ACCOUNT = SAMPLE_SERVICE_ACCOUNT;
const GOOD = SAMPLE_CREDENTIALS;

/** One wrong value per provider: the shape check refuses it before any file is written. */
const BAD: Record<DnsProvider, Record<string, unknown>> = {
  rfc2136: { ...GOOD.rfc2136, server: 'ns1.example.com' },
  cloudflare: { apiToken: 'two words' },
  digitalocean: { token: 'a#comment' },
  route53: { ...GOOD.route53, accessKeyId: 'not-an-aws-key' },
  ovh: { ...GOOD.ovh, endpoint: 'ovh-mars' },
  linode: { key: 'line\nbreak' },
  gandi: { apiKey: 'a,b' },
  google: { serviceAccountJson: '{"type":"authorized_user"}' },
  dnsimple: {},
};

for (const provider of DNS_PROVIDERS) {
  s(`${provider}: good credentials pass, a wrong one is refused`, () => {
    assert.ok(ProviderCredentials[provider].safeParse(GOOD[provider]).success, 'good');
    assert.not.ok(ProviderCredentials[provider].safeParse(BAD[provider]).success, 'bad');
    assert.not.ok(ProviderCredentials[provider].safeParse({ ...GOOD[provider], extra: 'x' }).success, 'unknown key');
    assert.ok(CertificateModeUpdate.safeParse({ mode: 'wildcard', provider, credentials: GOOD[provider] }).success, 'as the PUT body');
    assert.not.ok(CertificateModeUpdate.safeParse({ mode: 'wildcard', provider, credentials: BAD[provider] }).success, 'bad in the PUT body');
    assert.match(PROVIDERS[provider].package, /^python3-certbot-dns-[a-z0-9]+$/);
  });
}

s('rfc2136: the INI keys the plugin reads, the algorithm upper case (lower case silently becomes HMAC-MD5)', () => {
  assert.is(credentialsText('rfc2136', { server: '127.0.0.1', name: 'k', secret: SECRET }), [
    '# managed by relay-panel: replaced when the certificate settings change',
    'dns_rfc2136_server = 127.0.0.1',
    'dns_rfc2136_port = 53',
    'dns_rfc2136_name = k',
    `dns_rfc2136_secret = ${SECRET}`,
    'dns_rfc2136_algorithm = HMAC-SHA256',
    '',
  ].join('\n'));
  assert.not.ok(ProviderCredentials.rfc2136.safeParse({ ...GOOD.rfc2136, algorithm: 'hmac-sha256' }).success);
});

s('each provider renders its documented keys', () => {
  const text = (p: DnsProvider) => credentialsText(p, GOOD[p]);
  assert.match(text('cloudflare'), /^dns_cloudflare_api_token = 0123456789abcdef0123456789abcdef01234567$/m);
  assert.match(text('digitalocean'), /^dns_digitalocean_token = dop_v1_0123456789abcdef$/m);
  assert.match(text('route53'), /^\[default\]\naws_access_key_id = AKIAIOSFODNN7EXAMPLE\naws_secret_access_key = wJalrXUtnFEMI\/K7MDENG\/bPxRfiCYEXAMPLEKEY\n$/m);
  assert.match(text('ovh'), /^dns_ovh_endpoint = ovh-eu\ndns_ovh_application_key = MDAwMDAwMDAwMDAw\ndns_ovh_application_secret = \S+\ndns_ovh_consumer_key = \S+\n$/m);
  assert.match(text('linode'), /^dns_linode_key = 0123456789abcdef\ndns_linode_version = 4$/m);
  assert.match(text('gandi'), /^dns_gandi_api_key = gandi-api-key-0123$/m);
  assert.match(text('dnsimple'), /^dns_dnsimple_token = dnsimple-token-0123$/m);
  assert.equal(JSON.parse(text('google')), JSON.parse(SERVICE_ACCOUNT));
});

s('a value that would break the INI file is refused, never written', () => {
  for (const value of ['a b', 'x # y', 'a,b', '"q"', ' lead', 'trail ', 'new\nline', 'back\\slash', '']) {
    assert.throws(() => credentialsText('cloudflare', { apiToken: value }), undefined, JSON.stringify(value));
  }
});

s.run();
