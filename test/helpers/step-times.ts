// Prints each test's wall time after it, for the long suites whose file time alone does not say
// which step grew (the booted box, the install tests): what a run's time is spent on, step by step.
import type { Test } from 'uvu';

export function printStepTimes<T>(s: Test<T>): void {
  let started = 0;
  s.before.each(() => {
    started = Date.now();
  });
  s.after.each((ctx) => {
    const name = String((ctx as { __test__?: unknown }).__test__ ?? '');
    console.log(`\n  [${((Date.now() - started) / 1000).toFixed(1)} s] ${name.length > 90 ? `${name.slice(0, 89)}…` : name}`);
  });
}
