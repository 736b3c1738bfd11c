import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { toApiError } from '../../../panel/src/api.ts';

// The panel's reading of error bodies (panel/src/api.ts): a 429 says how long to wait from
// `details.retryAfter`, where the server puts it (the spec's {error, details?}).

const s = suite('panel: error bodies');

s('a 429 tells the wait from details.retryAfter', () => {
  const error = toApiError(429, { error: 'Too many attempts. Try again later.', details: { retryAfter: 38 } });
  assert.is(error.message, 'Too many attempts. Try again later. Wait 38 s.');
  assert.equal(error.issues, []);
  assert.is(error.detail, undefined, 'an object in details is not shown as text');
});

s('without a number there is no wait to tell', () => {
  assert.is(toApiError(429, { error: 'Rate limit exceeded' }).message, 'Rate limit exceeded');
  assert.is(toApiError(429, { error: 'Rate limit exceeded', details: { retryAfter: 'soon' } }).message, 'Rate limit exceeded');
});

s.run();
