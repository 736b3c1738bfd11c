import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { MAX_REPORTED_ISSUES } from '../../../lib/errors.ts';
import { agent, ticketApp, CHAT_SCOPE } from './fixtures.ts';
import type { TestApp } from '../../../lib/testing.ts';

// 450,000 bad strategies (a 900 KB body) once gave a 51.6 MB error after 3 s of
// blocked event loop. Validation runs before any capability check, so an unregistered agent suffices.

const s = suite<{ t: TestApp }>('tickets: oversized input', {} as { t: TestApp });
s.before.each(async (ctx) => {
  ctx.t = (await ticketApp()).t;
});
s.after.each(async ({ t }) => t.close());

const HUGE_STRATEGIES = JSON.stringify({ scope: 'chat:send', transport: { strategies: new Array(450_000).fill(1) } });

for (const path of ['/api/tickets/instances', '/api/tickets/scopes']) {
  s(`POST ${path} with 450,000 strategies: 400 with a small body`, async ({ t }) => {
    assert.ok(HUGE_STRATEGIES.length > 890_000);
    const started = performance.now();
    const response = await t.request('POST', path, { as: path.endsWith('scopes') ? 'admin' : agent('stranger'), body: HUGE_STRATEGIES });
    const text = await response.text();
    const elapsed = performance.now() - started;
    if (process.env.SHOW_TIMINGS) console.log(`${path}: ${elapsed.toFixed(1)} ms, ${text.length} bytes`);
    assert.is(response.status, 400);
    assert.ok(text.length < 8 * 1024, `body of ${text.length} bytes`);
    const body = JSON.parse(text);
    assert.is(body.error, 'Validation failed');
    assert.ok(body.details.issues.length <= MAX_REPORTED_ISSUES);
    assert.ok(body.details.issues.some((issue: { path: string }) => issue.path === 'transport.strategies'));
  });
}

s('more issues than the cap: the first 20 and truncated: true', async ({ t }) => {
  const declarations = Array.from({ length: 50 }, () => ({ name: 'bad name', description: '', instanceScoped: 'no' }));
  const { status, body } = await t.call('POST', '/api/tickets/scopes', { body: { ...CHAT_SCOPE, scopes: declarations } });
  assert.is(status, 400);
  assert.is(body.details.issues.length, MAX_REPORTED_ISSUES);
  assert.is(body.details.truncated, true);
  assert.is(body.details.issues[0].path, 'scopes.0.name');
});

s('issues under the cap: no truncated flag', async ({ t }) => {
  const { status, body } = await t.call('POST', '/api/tickets/scopes', { body: { ...CHAT_SCOPE, version: '' } });
  assert.is(status, 400);
  assert.is(body.details.issues.length, 1);
  assert.is(body.details.truncated, undefined);
});

s.run();
