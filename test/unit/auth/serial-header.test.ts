import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { normalizeSerial, serialFromHeader } from '../../../lib/auth/identity.ts';
import { AppError } from '../../../lib/errors.ts';
import { createTestApp, type TestApp } from '../../../lib/testing.ts';

// Every non-hex character used to be stripped, so
// `DEAD, 1000` read as DEAD1000. A serial that is not hex (colons allowed) is no certificate.

const s = suite<{ t: TestApp }>('X-SSL-Client-Serial', {} as { t: TestApp });
s.before(async (ctx) => {
  ctx.t = await createTestApp();
  await ctx.t.completeOnboarding();
  await ctx.t.addAgent('laptop-1', ['tunnels:read'], [], 'DEAD1000');
});
s.after(async ({ t }) => t.close());

const REFUSED = ['DEAD, 1000', 'DEAD 1000', 'DEAD;1000', '0xDEAD', 'DEAD-1000', 'DEAD::1000', ':DEAD', 'DEAD:', 'G1', 'DEAD\t1000', '12,34', 'dead1000 '];
const ACCEPTED: [string, string][] = [
  ['DEAD1000', 'DEAD1000'],
  ['dead1000', 'DEAD1000'],
  ['DE:AD:10:00', 'DEAD1000'],
  ['00DEAD1000', 'DEAD1000'],
  ['0', '0'],
  ['00', '0'],
];

for (const raw of REFUSED) {
  s(`${JSON.stringify(raw)} is refused like a missing certificate`, async ({ t }) => {
    assert.throws(() => serialFromHeader(raw), (e: unknown) => e instanceof AppError && e.status === 403);
    // trailing whitespace is trimmed by the header layer, so only the unit check sees it
    if (raw.trim() !== raw) return;
    const { status, body } = await t.call('GET', '/api/tunnels', { as: { agent: 'laptop-1', serial: raw } });
    assert.is(status, 403);
    assert.equal(body, { error: 'mTLS certificate required' });
  });
}

for (const [raw, normalized] of ACCEPTED) {
  s(`${JSON.stringify(raw)} reads as ${normalized}`, async ({ t }) => {
    assert.is(serialFromHeader(raw), normalized);
    assert.is(normalizeSerial(raw), normalized);
    // the serial parses; only the one registered for the label carries its capabilities
    const { status, body } = await t.call('GET', '/api/tunnels', { as: { agent: 'laptop-1', serial: raw } });
    if (normalized === 'DEAD1000') assert.is(status, 200);
    else assert.equal([status, body], [403, { error: 'Insufficient certificate capability' }]);
  });
}

s('no serial header at all is still no serial', () => {
  assert.is(serialFromHeader(null), null);
  assert.is(serialFromHeader(''), null);
});

s.run();
