import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { AppError } from '../../../lib/errors.ts';
import { runSteps, runStepsOrFail, StepFailure, type Step } from '../../../lib/steps.ts';

const s = suite('ordered steps with undo');

function recorder() {
  const log: string[] = [];
  const step = (name: string, fail = false, undoFails = false): Step => ({
    failure: `${name} failed`,
    run: async () => {
      log.push(`run ${name}`);
      if (fail) throw new Error(`${name} broke`);
    },
    undo: async () => {
      log.push(`undo ${name}`);
      if (undoFails) throw new Error(`undo ${name} broke`);
    },
  });
  return { log, step };
}

s('all steps run in order when nothing fails', async () => {
  const { log, step } = recorder();
  await runSteps([step('a'), step('b'), step('c')]);
  assert.equal(log, ['run a', 'run b', 'run c']);
});

s('a failure undoes the completed steps in reverse and names the failed one', async () => {
  const { log, step } = recorder();
  let failure: StepFailure | undefined;
  await runSteps([step('a'), step('b'), step('c', true), step('d')]).catch((e) => (failure = e));
  assert.equal(log, ['run a', 'run b', 'run c', 'undo b', 'undo a']);
  assert.is(failure!.message, 'c failed: c broke');
});

s('a failing undo does not stop the others nor hide the cause', async () => {
  const { log, step } = recorder();
  let failure: StepFailure | undefined;
  await runSteps([step('a'), step('b', false, true), step('c', true)]).catch((e) => (failure = e));
  assert.equal(log, ['run a', 'run b', 'run c', 'undo b', 'undo a']);
  assert.is(failure!.undoErrors.length, 1);
  assert.is(failure!.message, 'c failed: c broke');
});

s("runStepsOrFail renders the spec's 500 with the step's prefix", async () => {
  const { step } = recorder();
  let error: AppError | undefined;
  await runStepsOrFail('Failed to create tunnel', [step('Nginx configuration', true)]).catch((e) => (error = e));
  assert.is(error!.status, 500);
  assert.is(error!.message, 'Failed to create tunnel');
  assert.is(error!.details, 'Nginx configuration failed: Nginx configuration broke');
});

s.run();
