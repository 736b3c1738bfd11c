import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { CompleteEvent, StateMessage } from '../../../lib/onboarding/events.ts';
import { createTestApp, type TestApp } from '../../../lib/testing.ts';
import { defined } from '../../helpers/defined.ts';
import { serve } from '../../helpers/http-server.ts';
import { openStream, provisionStreamUrl } from '../../helpers/provision-stream.ts';
import { withTimeout } from '../../helpers/timeout.ts';
import { refusedUpgrade } from '../../helpers/websocket.ts';
import { DOMAIN, holdCertificates, nextOutcome, provisionAndWait, sandbox, walkToDnsReady, CHEAP_ONBOARDING } from './support.ts';

const s = suite('onboarding progress stream');
let t: TestApp;
let http: Awaited<ReturnType<typeof serve>>;
s.before.each(async () => {
  t = await createTestApp({ durable: true, onboarding: CHEAP_ONBOARDING }); // one test restarts on the same directory
  http = await serve(t.app);
});
s.after.each(async () => {
  await http.close();
  await t.close();
});

const SPEC_FIELDS = ['task', 'title', 'status', 'message', 'log', 'progress'];

s('a client first receives the full state: idle before any run', () =>
  withTimeout('idle state', 5000, async () => {
    const client = await openStream(http.port);
    const first = (await client.waitFor(() => true)) as StateMessage;
    for (const f of SPEC_FIELDS) assert.ok(f in first, f);
    assert.is(first.type, 'state');
    assert.is(first.run, 'idle');
    assert.is(first.onboardingStatus, 'FRESH');
    assert.equal(first.progress, { current: 0, total: 6 });
    assert.equal(first.tasks.map((x) => [x.task, x.status]), [
      ['tunnel-server', 'pending'],
      ['auth-portal', 'pending'],
      ['certificates', 'pending'],
      ['vhosts', 'pending'],
      ['services', 'pending'],
      ['complete', 'pending'],
    ]);
    assert.ok(first.tasks.every((x) => x.title.length > 0));
    assert.is(first.error, null);
    assert.is(t.services.onboarding.board.listenerCount, 1);
    client.close();
    await client.closed;
    while (t.services.onboarding.board.listenerCount > 0) await new Promise((ok) => setTimeout(ok, 10));
  }),
);

s('a late joiner mid-run gets every task with status, message and log, then the same live events', () =>
  withTimeout('late joiner', 10_000, async () => {
    await walkToDnsReady(t);
    const early = await openStream(http.port);
    const held = holdCertificates(t);
    const outcome = nextOutcome(t);
    assert.is((await t.call('POST', '/api/onboarding/provision')).status, 202);
    await held.entered;

    const late = await openStream(http.port);
    try {
      const state = (await late.waitFor(() => true)) as StateMessage;
      assert.is(state.type, 'state');
      assert.is(state.run, 'running');
      assert.is(state.onboardingStatus, 'PROVISIONING');
      assert.equal(state.progress, { current: 2, total: 6 });
      assert.equal(state.tasks.map((x) => x.status), ['done', 'done', 'running', 'pending', 'pending', 'pending']);
      assert.is(state.task, 'certificates', 'the top-level fields describe the running task');
      assert.is(state.message, `Requesting a certificate for panel.${DOMAIN}`);
      assert.match(state.tasks[0]!.log, 'Tunnel server installed');
      assert.match(state.tasks[1]!.log, "Creating the portal user 'admin'");
      assert.match(state.tasks[2]!.log, 'Issue TLS certificates...');
      assert.not.ok('credentials' in state);
    } finally {
      // even when an assertion failed: the held run must end or the app cannot close
      held.release();
    }
    const finalLate = (await late.waitFor((m) => m.type === 'complete')) as CompleteEvent;
    const finalEarly = (await early.waitFor((m) => m.type === 'complete')) as CompleteEvent;
    await outcome;
    assert.equal(finalLate, finalEarly, 'one shared stream');
    // after its state message the late joiner sees exactly what the early client saw from then on
    const tail = late.messages.slice(1);
    assert.equal(early.messages.slice(-tail.length), tail);
    assert.equal(early.messages[0]?.type, 'state');
    assert.equal((early.messages[1] as StateMessage).run, 'running', 'a new run announces its fresh state');
    assert.equal(await early.closed, { code: 1000, reason: 'Provisioning complete' });
    assert.equal(await late.closed, { code: 1000, reason: 'Provisioning complete' });
  }),
);

s('after a restart mid-run the stream shows no run, status PROVISIONING; a new POST completes', () =>
  withTimeout('restart mid-run', 10_000, async () => {
    await walkToDnsReady(t);
    const held = holdCertificates(t);
    assert.is((await t.call('POST', '/api/onboarding/provision')).status, 202);
    await held.entered;
    await http.close();
    const closing = t.close({ keep: true });
    held.release();
    await closing;

    t = await createTestApp({ dir: t.dir, onboarding: CHEAP_ONBOARDING });
    http = await serve(t.app);
    const client = await openStream(http.port);
    const state = (await client.waitFor(() => true)) as StateMessage;
    assert.is(state.type, 'state');
    assert.is(state.run, 'idle');
    assert.is(state.onboardingStatus, 'PROVISIONING');
    assert.ok(state.tasks.every((x) => x.status === 'pending'));
    assert.is(state.error, null);
    const { outcome } = await provisionAndWait(t);
    assert.is(outcome.type, 'complete');
    assert.is((await client.waitFor((m) => m.type === 'complete')).type, 'complete');
  }),
);

s('the final event carries the admin credentials and the three access URLs', () =>
  withTimeout('final event', 10_000, async () => {
    await walkToDnsReady(t);
    const client = await openStream(http.port);
    await t.call('POST', '/api/onboarding/provision');
    const final = (await client.waitFor((m) => m.type === 'complete')) as CompleteEvent;
    assert.equal(Object.keys(final), ['type', 'task', 'title', 'status', 'message', 'log', 'progress', 'credentials', 'urls']);
    assert.is(final.task, 'complete');
    assert.is(final.status, 'done');
    assert.equal(final.progress, { current: 6, total: 6 });
    assert.is(final.credentials.username, 'admin');
    assert.is(final.credentials.password.length, 20);
    assert.equal(final.urls, { panel: `https://panel.${DOMAIN}`, authPortal: `https://auth.${DOMAIN}`, ip: 'https://203.0.113.10:9292' });
    assert.equal(client.messages.filter((m) => m.type === 'complete').length, 1);
  }),
);

s('after a failure a joiner sees the failed run; a retry streams to completion', () =>
  withTimeout('failed then retry', 10_000, async () => {
    await walkToDnsReady(t);
    sandbox(t).failNext('proxy.test', 'nginx: [emerg] bind() failed');
    const failed = await provisionAndWait(t);
    assert.is(failed.outcome.type, 'error');

    const client = await openStream(http.port);
    const state = (await client.waitFor(() => true)) as StateMessage;
    assert.is(state.run, 'failed');
    assert.equal(state.error, { task: 'vhosts', message: 'nginx: [emerg] bind() failed' });
    assert.is(state.task, 'vhosts');
    assert.is(state.status, 'error');
    const vhosts = defined(state.tasks[3], 'the vhosts task');
    assert.is(vhosts.status, 'error');
    assert.match(vhosts.log, 'Failed: nginx: [emerg] bind() failed');
    assert.equal(state.progress, { current: 3, total: 6 });

    await t.call('POST', '/api/onboarding/provision');
    const final = await client.waitFor((m) => m.type === 'complete');
    assert.is(final.progress.current, 6);
    const restart = client.messages[1] as StateMessage;
    assert.is(restart.type, 'state');
    assert.is(restart.run, 'running');
    assert.is(restart.error, null);
    assert.ok(restart.tasks.every((x) => x.status === 'pending'));
  }),
);

s('once COMPLETED the stream answers 410, so nobody connecting later gets the password', () =>
  withTimeout('410 after completion', 10_000, async () => {
    await walkToDnsReady(t);
    const { outcome } = await provisionAndWait(t);
    assert.is(outcome.type, 'complete');
    assert.equal(await refusedUpgrade(provisionStreamUrl(http.port)), { status: 410, body: { error: 'Onboarding already completed' } });
    const state = t.services.onboarding.board.snapshot();
    assert.is(state.run, 'completed');
    assert.not.ok(JSON.stringify(state).includes((outcome as CompleteEvent).credentials.password));
  }),
);

s('the stream is admin-only', () =>
  withTimeout('stream auth', 5000, async () => {
    assert.equal(await refusedUpgrade(provisionStreamUrl(http.port), 'none'), { status: 403, body: { error: 'mTLS certificate required' } });
  }),
);

s.run();
