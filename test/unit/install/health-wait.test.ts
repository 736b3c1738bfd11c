// The wait for /api/health after a start: install's and upgrade's alike give up on a panel systemd
// shows crashing at start instead of waiting out the timeout. The probe and the clock are injected.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { PROBE_EVERY_MS, waitForHealth, type HealthWaitTools } from '../../../lib/install/health.ts';
import { health } from '../../../lib/install/steps/panel.ts';
import { CRASH_LOOP_RESTARTS } from '../../../lib/install/unit-restarts.ts';
import { systemctlBox } from './systemctl-box.ts';

const s = suite('the health wait after a start');

/** A panel that answers from `answersAt` ms on (null: never), on a clock that moves only by the wait's sleeps. */
function tools(answersAt: number | null) {
  let now = 0;
  const probed: number[] = [];
  const t: HealthWaitTools = {
    probe: async (port) => {
      probed.push(port);
      return answersAt !== null && now >= answersAt;
    },
    now: () => now,
    sleep: async (ms) => {
      now += ms;
    },
  };
  return { tools: t, probed, elapsed: () => now };
}

s('a panel that answers ends the wait at its first 200', async () => {
  const t = tools(1_000);
  assert.is(await waitForHealth(3100, 60_000, async () => null, t.tools), true);
  assert.is(t.elapsed(), 1_000);
  assert.ok(t.probed.every((port) => port === 3100));
});

s('a crash loop ends the wait with its reason, long before the timeout', async () => {
  const t = tools(null);
  let asked = 0;
  const givesUp = async () => (++asked === 3 ? 'it exited at start and systemd restarted it 2 times' : null);
  assert.is(await waitForHealth(3100, 60_000, givesUp, t.tools), 'it exited at start and systemd restarted it 2 times');
  // asked about once a second
  assert.is(t.elapsed(), 3 * 4 * PROBE_EVERY_MS - PROBE_EVERY_MS);
});

s('no answer and no reason: the whole timeout, then says so', async () => {
  const t = tools(null);
  assert.is(await waitForHealth(3100, 10_000, async () => null, t.tools), 'no answer within 10000 ms');
  assert.is(t.elapsed(), 10_000);
  assert.is(t.probed.length, 10_000 / PROBE_EVERY_MS + 1);
});

s('install\'s health step gives up on a panel systemd keeps restarting, naming why', async () => {
  const t = tools(null);
  const outcome = await health(systemctlBox('activating', String(CRASH_LOOP_RESTARTS), 60_000).inst, t.tools);
  assert.is(outcome.status, 'warning');
  assert.match(outcome.message ?? '', `systemd restarted it ${CRASH_LOOP_RESTARTS} times`);
  assert.ok(t.elapsed() < 2_000, `waited ${t.elapsed()} ms of a 60 s timeout`);
});

s('install\'s health step still waits for a panel that is only slow to start', async () => {
  const t = tools(20_000);
  const outcome = await health(systemctlBox('activating', '0', 60_000).inst, t.tools);
  assert.is(outcome.status, 'done', outcome.message);
  assert.is(t.elapsed(), 20_000);
});

s.run();
