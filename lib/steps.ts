import { AppError, errorMessage } from './errors.ts';

// Step prefixes shared by tunnels, sites and provisioning: the spec's words for which side effect failed.
export const CERTIFICATE_FAILED = 'Certificate issuance failed';
export const NGINX_FAILED = 'Nginx configuration failed';
export const DIRECTORY_FAILED = 'Directory creation failed';
export const STATE_FAILED = 'State persistence failed';

/** One side effect of a multi-step operation, with the way to take it back. */
export interface Step {
  /** The spec's prefix for this step's failure details, e.g. `Nginx configuration failed`. */
  failure: string;
  run(): Promise<void>;
  undo?(): Promise<void>;
}

export class StepFailure extends Error {
  constructor(
    readonly step: Step,
    readonly reason: unknown,
    readonly undoErrors: unknown[],
  ) {
    super(`${step.failure}: ${errorMessage(reason)}`);
    this.name = 'StepFailure';
  }
}

/**
 * Runs the steps in order. When one fails, the completed ones are undone in reverse and a
 * StepFailure names the failed step; undo errors are collected, never allowed to hide the cause.
 */
export async function runSteps(steps: readonly Step[]): Promise<void> {
  const done: Step[] = [];
  for (const step of steps) {
    try {
      await step.run();
    } catch (cause) {
      const undoErrors: unknown[] = [];
      for (const completed of done.reverse()) {
        try {
          await completed.undo?.();
        } catch (error) {
          undoErrors.push(error);
        }
      }
      throw new StepFailure(step, cause, undoErrors);
    }
    done.push(step);
  }
}

/** `runSteps`, with a failure rendered as the spec's 500: `{error: summary, details: "<prefix>: <reason>"}`. */
export async function runStepsOrFail(summary: string, steps: readonly Step[]): Promise<void> {
  try {
    await runSteps(steps);
  } catch (error) {
    if (error instanceof StepFailure) throw new AppError(500, summary, error.message);
    throw error;
  }
}
