// A reload's real outcome (lib/system/proxy/reload-outcome.ts): the master's new workers, or the
// master's own [emerg]/[alert] lines, whichever shows first; a fake clock, scripted /proc and log.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { HIDDEN_GRACE_MS, masterProblems, reloadOutcome, type ReloadProbe, type WaitClock } from '../../../lib/system/proxy/reload-outcome.ts';

const MASTER = 4242;
const timing = { timeoutMs: 10_000, pollMs: 50, settleMs: 700 };
const line = (level: string, pid: number, text: string) => `2026/11/28 08:00:00 [${level}] ${pid}#${pid}: ${text}`;

function fakeClock(): WaitClock & { t: number } {
  const clock = { t: 0, now: () => clock.t, sleep: async (ms: number) => void (clock.t += ms) };
  return clock;
}

/** `at(ms)`: what /proc and the log show at that time (the log: lines written since the last look). */
function scripted(at: (ms: number) => { children: number[] | null; lines?: string[] }, clock: WaitClock): ReloadProbe & { looks: number } {
  const probe = {
    looks: 0,
    children: async () => (probe.looks++, at(clock.now()).children),
    lines: async () => at(clock.now()).lines ?? [],
  };
  return probe;
}

const s = suite('a reload\'s outcome');

s('new workers are not the end while an old one is not yet told to quit: it still accepts with the old configuration', async () => {
  const clock = fakeClock();
  const probe = { ...scripted((ms) => ({ children: ms < 1_000 ? [100] : [100, 200] }), clock), shuttingDown: async (pid: number) => (pid === 100 ? clock.now() >= 1_150 : null) };
  assert.equal(await reloadOutcome(MASTER, [100], probe, timing, clock), { ok: true });
  assert.is(clock.t, 1_150, 'answered when the old worker was titled shutting down, not when the new one appeared');
});

s('an old worker whose title cannot be read counts as told once the master\'s pause has surely passed', async () => {
  const clock = fakeClock();
  const probe = { ...scripted((ms) => ({ children: ms < 1_000 ? [100] : [100, 200] }), clock), shuttingDown: async () => null };
  assert.equal(await reloadOutcome(MASTER, [100], probe, timing, clock), { ok: true });
  assert.is(clock.t, 1_000 + HIDDEN_GRACE_MS);
});

s('old workers never told to quit: the reload fails at its deadline', async () => {
  const clock = fakeClock();
  const probe = { ...scripted(() => ({ children: [100, 200] }), clock), shuttingDown: async () => false };
  const outcome = await reloadOutcome(MASTER, [100], probe, timing, clock);
  assert.equal(outcome, { ok: false, problem: `the old worker processes were not told to quit within ${timing.timeoutMs} ms` });
});

s('a reload slower than the 400 ms the panel used to wait: answered once new workers run, not before', async () => {
  const clock = fakeClock();
  const probe = { ...scripted((ms) => ({ children: ms < 3_500 ? [100] : [100, 200] }), clock), shuttingDown: async () => clock.now() >= 3_500 };
  assert.equal(await reloadOutcome(MASTER, [100], probe, timing, clock), { ok: true });
  assert.is(clock.t, 3_500);
});

s('the old workers already gone when the new ones are seen: still new workers', async () => {
  const clock = fakeClock();
  const probe = scripted((ms) => ({ children: ms < 200 ? [100, 101] : [300] }), clock);
  assert.equal(await reloadOutcome(MASTER, [100, 101], probe, timing, clock), { ok: true });
});

s('a bind refused at reload time: nginx\'s words, once the master has stopped retrying', async () => {
  const clock = fakeClock();
  const bind = line('emerg', MASTER, 'bind() to 127.0.0.1:8080 failed (98: Address already in use)');
  // the master logs each of its five tries 500 ms apart, then gives up
  const tries = [3_000, 3_500, 4_000, 4_500, 5_000];
  const probe = scripted((ms) => ({
    children: [100],
    lines: tries.includes(ms) ? [bind] : ms === 5_500 ? [line('emerg', MASTER, 'still could not bind()')] : [],
  }), clock);
  const outcome = await reloadOutcome(MASTER, [100], probe, timing, clock);
  assert.equal(outcome, { ok: false, problem: 'bind() to 127.0.0.1:8080 failed (98: Address already in use); still could not bind()' });
  assert.is(clock.t, 5_500 + timing.settleMs, 'answered after the last line and the quiet after it');
});

s('new workers during the quiet after a line: the reload took (an [alert] that did not stop it)', async () => {
  const clock = fakeClock();
  const probe = scripted((ms) => ({
    children: ms < 400 ? [100] : [100, 200],
    lines: ms === 300 ? [line('alert', MASTER, 'something nginx survived')] : [],
  }), clock);
  assert.equal(await reloadOutcome(MASTER, [100], probe, timing, clock), { ok: true });
});

s('lines of other processes (a worker\'s alert, a request\'s error) are not the reload\'s', async () => {
  const clock = fakeClock();
  const probe = scripted((ms) => ({
    children: ms < 1_000 ? [100] : [100, 200],
    lines: ms === 100 ? [line('alert', 100, '*12 open socket #9 left in connection 3'), line('error', MASTER, 'open() "/x" failed'), 'a torn or foreign line'] : [],
  }), clock);
  assert.equal(await reloadOutcome(MASTER, [100], probe, timing, clock), { ok: true });
});

s('nothing at all within the timeout: failed, saying so', async () => {
  const clock = fakeClock();
  const probe = scripted(() => ({ children: [100] }), clock);
  assert.equal(await reloadOutcome(MASTER, [100], probe, timing, clock), { ok: false, problem: 'no new worker processes within 10000 ms' });
  assert.is(clock.t, timing.timeoutMs);
});

s('the master gone during the reload: failed', async () => {
  const clock = fakeClock();
  const probe = scripted((ms) => ({ children: ms < 200 ? [100] : null }), clock);
  assert.equal(await reloadOutcome(MASTER, [100], probe, timing, clock), { ok: false, problem: `nginx's master process ${MASTER} exited` });
});

s('masterProblems: [emerg] and [alert] text of the given process, or of any when none is given', () => {
  const lines = [line('emerg', 7, 'a'), line('alert', 8, 'b'), line('crit', 7, 'c'), line('error', 7, 'd')];
  assert.equal(masterProblems(lines, 7), ['a']);
  assert.equal(masterProblems(lines, null), ['a', 'b']);
});

s.run();
