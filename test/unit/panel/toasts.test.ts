import { mock } from 'node:test';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { actionStarted, actionStarts, dismissToast, MAX_TOASTS, onNextActionStart, showToast, TOAST_MS, toasts } from '../../../panel/src/toasts.ts';

// The panel's toast store (panel/src/toasts.ts): toasts go away by themselves, a failure lasts
// longer than a success and ends when a later action starts, and what a page said of an earlier
// action is cleared then too (no stale message after a later action).

const s = suite('panel: toasts');
const texts = () => toasts.value.map((t) => `${t.kind}:${t.text}`);

s.after.each(() => {
  for (const t of toasts.value) dismissToast(t.id);
});

s('a success lasts less than a failure; each goes by itself', () => {
  assert.ok(TOAST_MS.ok < TOAST_MS.error);
  // node's mock timers: real 20 and 60 ms ones both ran out within a 40 ms sleep on a loaded machine
  mock.timers.enable({ apis: ['setTimeout'] });
  try {
    showToast('ok', 'Tunnel created.', 20);
    showToast('error', 'Port in use', 60);
    assert.equal(texts(), ['ok:Tunnel created.', 'error:Port in use']);
    mock.timers.tick(40);
    assert.equal(texts(), ['error:Port in use']);
    mock.timers.tick(40);
    assert.equal(texts(), []);
  } finally {
    mock.timers.reset();
  }
});

s('dismissed by hand, a toast goes at once and its timer with it', () => {
  const id = showToast('error', 'Refused');
  dismissToast(id);
  assert.equal(texts(), []);
  dismissToast(id);
  assert.equal(texts(), [], 'twice is harmless');
});

s('at most MAX_TOASTS: the oldest goes', () => {
  for (let i = 0; i <= MAX_TOASTS; i++) showToast('ok', `n${i}`);
  assert.is(toasts.value.length, MAX_TOASTS);
  assert.is(toasts.value[0]!.text, 'n1');
});

s('an action starting ends the failures shown and what pages said of earlier actions; successes stay', () => {
  showToast('ok', 'Webhook added.');
  showToast('error', 'Delete failed');
  const cleared: string[] = [];
  onNextActionStart(() => cleared.push('page error'));
  const before = actionStarts.value;
  assert.is(actionStarted(), before + 1);
  assert.equal(texts(), ['ok:Webhook added.']);
  assert.equal(cleared, ['page error']);
  actionStarted();
  assert.equal(cleared, ['page error'], 'cleared once: a later failure registers again');
});

s.run();
