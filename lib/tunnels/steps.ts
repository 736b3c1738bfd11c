import type { Step } from '../steps.ts';
import type { PendingState } from './allowed-ports.ts';
import type { TunnelContext } from './context.ts';

export { CERTIFICATE_FAILED, NGINX_FAILED, STATE_FAILED } from '../steps.ts';

const CHISEL_FAILED = 'Chisel reconfiguration failed';

/** Rewrites the authfile from the records as they are (a repair: nothing to take back). */
export function tunnelServerSyncStep(ctx: TunnelContext): Step {
  return { failure: CHISEL_FAILED, run: () => ctx.allowedPorts.sync() };
}

/**
 * Puts the tunnel's intended state in front of its record and rewrites the authfile from it.
 * The caller clears the pending state once the record says the same (after the save).
 */
export function tunnelServerStep(ctx: TunnelContext, id: string, state: PendingState): Step {
  const withdraw = async () => {
    ctx.allowedPorts.clearPending(id);
    await ctx.allowedPorts.sync();
  };
  return {
    failure: CHISEL_FAILED,
    async run() {
      ctx.allowedPorts.setPending(id, state);
      try {
        await ctx.allowedPorts.sync();
      } catch (error) {
        // a failed step is not undone by runSteps: take the pending state back here
        await withdraw().catch((e: unknown) => ctx.log.warn(`tunnel server: restoring the authfile failed: ${String(e)}`));
        throw error;
      }
    },
    undo: withdraw,
  };
}
