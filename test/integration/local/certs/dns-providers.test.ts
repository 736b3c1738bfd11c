// The DNS providers that need the internet, checked as far as this machine allows: Debian has each
// plugin's package under the name the panel installs, and the credentials file the panel writes is
// read back by certbot's own reader (certbot.plugins.dns_common, configobj: what every INI plugin
// uses), by Python's configparser as boto3 reads route53's AWS file, and as JSON for google. The
// rfc2136 plugin is exercised for real by wildcard-dns01.test.ts.
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { dnsCredentialsDir, dnsCredentialsPath, putCredentialsFile } from '../../../../lib/certs/dns01/credentials-file.ts';
import { credentialsText } from '../../../../lib/certs/dns01/credentials-text.ts';
import { DNS_PROVIDERS, PROVIDERS, type DnsProvider } from '../../../../lib/certs/dns01/providers.ts';
import { SAMPLE_CREDENTIALS } from '../../../helpers/dns-credentials.ts';

const run = promisify(execFile);
const s = suite('DNS providers: Debian packages and the credentials files their plugins read');


/** What each plugin looks up in its file (certbot's dns_<p>_ prefix dropped, as the plugins ask). */
const EXPECTED: Record<DnsProvider, Record<string, string>> = {
  rfc2136: { server: '127.0.0.1', port: '15353', name: 'certbot-key', secret: 'c2VjcmV0K2tleS9mb3I9dGVzdHM=', algorithm: 'HMAC-SHA256' },
  cloudflare: { api_token: '0123456789abcdef0123456789abcdef01234567' },
  digitalocean: { token: 'dop_v1_0123456789abcdef' },
  route53: { aws_access_key_id: 'AKIAIOSFODNN7EXAMPLE', aws_secret_access_key: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY' },
  ovh: { endpoint: 'ovh-eu', application_key: 'MDAwMDAwMDAwMDAw', application_secret: 'MDAwMDAw+MDAw/MDAw=', consumer_key: 'MDAwMDAwMDAwMDAwMDAw' },
  linode: { key: '0123456789abcdef', version: '4' },
  gandi: { api_key: 'gandi-api-key-0123' },
  google: { type: 'service_account', client_email: 'certbot@p.iam.gserviceaccount.com' },
  dnsimple: { token: 'dnsimple-token-0123' },
};

// certbot's interpreter (the plugins run under /usr/bin/python3, whatever python3 is on PATH)
const READER = `
import configparser, json, sys
from certbot.plugins.dns_common import CredentialsConfiguration
out = {}
for arg in sys.argv[1:]:
    provider, path = arg.split('=', 1)
    if provider == 'route53':
        c = configparser.ConfigParser(); c.read(path)
        out[provider] = dict(c['default'])
    elif provider == 'google':
        key = json.load(open(path))
        out[provider] = {k: key[k] for k in ('type', 'client_email')}
    else:
        conf = CredentialsConfiguration(path, lambda k: 'dns_%s_%s' % (provider, k))
        out[provider] = {k[len('dns_%s_' % provider):]: v for k, v in conf.confobj.items()}
print(json.dumps(out))
`;

let dir = '';
s.before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'relay-dns-providers-'));
});
s.after(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

s('each provider\'s file, as the panel writes it, reads back as its plugin reads it', async () => {
  const args: string[] = [];
  for (const provider of DNS_PROVIDERS) {
    const path = dnsCredentialsPath(dir, provider);
    await putCredentialsFile(path, dnsCredentialsDir(dir), credentialsText(provider, SAMPLE_CREDENTIALS[provider]));
    args.push(`${provider}=${path}`);
  }
  const { stdout, stderr } = await run('/usr/bin/python3', ['-c', READER, ...args]);
  assert.not.match(stderr, /Unsafe permissions/, 'written 0600');
  assert.equal(JSON.parse(stdout), EXPECTED);
});

s('Debian has each plugin\'s package under the name the panel installs', async () => {
  const packages = DNS_PROVIDERS.map((provider) => PROVIDERS[provider].package);
  // one run: apt-cache loads its caches once (about a second), not once per package
  const { stdout } = await run('/usr/bin/apt-cache', ['show', '--no-all-versions', ...packages]);
  const records = new Map(stdout.split(/\n\n+/).map((record) => [/^Package: (\S+)$/m.exec(record)?.[1], record] as const));
  for (const pkg of packages) {
    assert.ok(records.has(pkg), `${pkg} is in Debian`);
    assert.match(records.get(pkg)!, /^Depends: .*certbot/m, `${pkg} is a certbot plugin`);
  }
});

s.run();
