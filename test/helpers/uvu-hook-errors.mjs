// uvu as the tests import it (`import { suite } from 'uvu'` resolves here through test/helpers/ts-hooks.mjs),
// with one change: a before or after hook that throws prints its error before uvu sees it. uvu's
// runner returns from its `finally`, which drops that error, so a suite whose set-up failed (a
// program that did not start in time under CI's load) said only that its tests did not run.
import { exec, suite as uvuSuite, test as uvuTest } from 'uvu';

function printing(add, where) {
  return (hook) => add(async (...args) => {
    try {
      return await hook(...args);
    } catch (error) {
      process.stdout.write(`\n${where} hook threw: ${error?.stack ?? error}\n`);
      throw error;
    }
  });
}

function withHookErrors(s) {
  const { before, after } = s;
  s.before = Object.assign(printing(before, 'before'), { each: before.each });
  s.after = Object.assign(printing(after, 'after'), { each: after.each });
  return s;
}

export const suite = (...args) => withHookErrors(uvuSuite(...args));
export const test = withHookErrors(uvuTest);
export { exec };
/** That `uvu` resolved here (test/unit/meta/source-copies.test.ts checks it in the unit workers' copies). */
export const PRINTS_HOOK_ERRORS = true;
