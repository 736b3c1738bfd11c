// Which failed orders count as failed validations: certbot's words, as the host adapter passes them on.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { failedValidations } from '../../../../lib/certs/limits/failed-validation.ts';
import { certbotFailureSummary } from '../../../../lib/system/certs/certbot-output.ts';
import { SystemError } from '../../../../lib/system/errors.ts';

const s = suite('certificate limits: failed validations in certbot failures');
const NAMES = ['app.example.com'];
/** What the host adapter throws for a failed `certbot certonly` with this output. */
const failure = (output: string) => new SystemError(`certbot could not issue app.example.com: ${certbotFailureSummary(output)}`, 'certbot');
const authFailure = (type: string, detail: string) => failure(`Certbot failed to authenticate some domains (authenticator: webroot). The Certificate Authority reported these problems:
  Domain: app.example.com
  Type:   ${type}
  Detail: ${detail}

Hint: The Certificate Authority failed to download the temporary challenge files created by Certbot.
Some challenges have failed.
Ask for help or search for solutions at https://community.letsencrypt.org. See the logfile /var/log/letsencrypt/letsencrypt.log or re-run Certbot with -v for more details.`);

s("a challenge the CA could not fetch or found wrong is a failed validation of the order's names", () => {
  for (const [type, detail] of [
    ['unauthorized', 'Invalid response from http://app.example.com/.well-known/acme-challenge/abc: 404'],
    ['connection', 'Timeout during connect (likely firewall problem)'],
    ['connection', 'could not resolve URL "http://app.example.com/.well-known/acme-challenge/abc"'],
    ['dns', 'DNS problem: NXDOMAIN looking up A for app.example.com - check that a DNS record exists for this domain'],
    ['caa', 'CAA record for app.example.com prevents issuance'],
  ]) assert.equal(failedValidations(authFailure(type!, detail!), NAMES), NAMES, detail);
});

s("the CA's own rate limit, or a failure before any challenge, is not", () => {
  const limited = failure('An unexpected error occurred:\nError creating new order :: too many certificates (50) already issued for "example.com" in the last 168h0m0s, retry after 2026-11-30T00:00:00Z: see https://letsencrypt.org/docs/rate-limits/');
  assert.equal(failedValidations(limited, NAMES), []);
  // the ACME server itself unreachable: no order reached it
  assert.equal(failedValidations(failure("An unexpected error occurred:\nrequests.exceptions.ConnectionError: HTTPSConnectionPool(host='acme-v02.api.letsencrypt.org', port=443): Max retries exceeded with url: /directory (Caused by NewConnectionError: Failed to establish a new connection: [Errno 111] Connection refused)"), NAMES), []);
  assert.equal(failedValidations(new SystemError('certbot: timeout', 'certbot', undefined, 'timeout'), NAMES), []);
});

s.run();
