import { errorMessage } from '../../errors.ts';

// A failed certbot run's text (lib/system/certs/certbot-output.ts keeps its ACME "Domain:" and
// "Detail:" lines) says the validation failed when a challenge could not be fetched or answered
// wrongly (unauthorized, connection, dns, caa, tls: "Invalid response from ...acme-challenge",
// "Timeout during connect", "DNS problem", "CAA record ..."). The CA's refusal by its own limits
// ("too many ...", rateLimited) is an order, not a failed validation.
const RATE_LIMITED = /rateLimited|too many/i;
const VALIDATION = /acme-challenge|failed to authenticate|challenges? (have|has) failed|unauthorized|incorrectResponse|Invalid response|Timeout during connect|could not resolve URL|DNS problem|NXDOMAIN|no valid A|CAA record|:connection|:dns|:caa|:tls/i;

/** The names whose validation a failed certbot run reports failed (all of the order's, or none). */
export function failedValidations(error: unknown, names: readonly string[]): string[] {
  const text = errorMessage(error);
  if (RATE_LIMITED.test(text) || !VALIDATION.test(text)) return [];
  return [...names];
}
