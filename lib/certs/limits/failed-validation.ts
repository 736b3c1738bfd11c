import { errorMessage } from '../../errors.ts';

// certbot's failure text names the ACME problem type of a failed challenge (urn:...:acme:error:
// unauthorized, connection, dns, incorrectResponse, caa, tls) or says the challenges failed; a
// refusal by the CA's own limits (rateLimited, "too many ...") is an order but no failed validation.
const RATE_LIMITED = /rateLimited|too many/i;
const VALIDATION = /unauthorized|incorrectResponse|:connection|:dns|:caa|:tls|challenges? (have|has) failed|Invalid response from|Timeout during connect|NXDOMAIN|no valid A records|Fetching .*acme-challenge/i;

/** The names whose validation a failed certbot run reports failed (all of the order's, or none). */
export function failedValidations(error: unknown, names: readonly string[]): string[] {
  const text = errorMessage(error);
  if (RATE_LIMITED.test(text) || !VALIDATION.test(text)) return [];
  return [...names];
}
