// route53's credentials reach certbot only through AWS_SHARED_CREDENTIALS_FILE (its plugin has no
// option certbot keeps in the renewal configuration): the renewal timer's service carries the
// variable, naming the very file the wildcard mode writes the credentials to.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { dnsCredentialsPath } from '../../../lib/certs/dns01/credentials-file.ts';
import { PROVIDERS } from '../../../lib/certs/dns01/providers.ts';
import { openInstallation } from '../../../lib/install/installation.ts';
import { renewalUnits } from '../../../lib/install/renewals.ts';
import { renewalEnvironment, ROUTE53_CREDENTIALS_ENV } from '../../../lib/system/certs/renewal-env.ts';

const s = suite('route53 renewals');

s('the variable is the one the plugin reads, naming the file the wildcard mode writes', () => {
  assert.is(PROVIDERS.route53.credentialsEnv, ROUTE53_CREDENTIALS_ENV);
  assert.equal(renewalEnvironment('/var/lib/relay-panel'), { [ROUTE53_CREDENTIALS_ENV]: dnsCredentialsPath('/var/lib/relay-panel', 'route53') });
});

s('the installed renewal service sets it for certbot renew', () => {
  const inst = openInstallation({
    prefix: '/srv/box', json: true, user: 'relay-panel', harden: false, packages: false, downloads: false, system: {},
    release: '/srv/box', node: process.execPath, healthTimeoutMs: 0, purge: false,
  });
  const service = renewalUnits(inst).find((u) => u.name.endsWith('.service'))!;
  assert.match(service.content, `\nEnvironment=AWS_SHARED_CREDENTIALS_FILE=${dnsCredentialsPath(inst.layout.dataDir, 'route53')}\n`);
  assert.is(inst.layout.dataDir, '/srv/box/var/lib/relay-panel');
});

s.run();
