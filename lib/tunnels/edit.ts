import { AppError } from '../errors.ts';
import type { TunnelRecord } from '../state/schemas.ts';
import { runStepsOrFail, type Step } from '../steps.ts';
import { findTunnel, putVhost, TUNNEL_NOT_FOUND, type TunnelContext } from './context.ts';
import { checkPortFree } from './port-rules.ts';
import type { TunnelSettings } from './schema.ts';
import { NGINX_FAILED, STATE_FAILED, tunnelServerStep } from './steps.ts';

/**
 * A new port: the vhost's upstream rewritten (its link kept as it is), the authfile's grant moved
 * from the old port to the new one, then the record saved; a failed step puts back the vhost and
 * the grant, so the tunnel keeps answering on its old port. A description alone is only a save.
 * The certificate and the subdomain are not touched.
 */
export function editTunnel(ctx: TunnelContext, id: string, input: TunnelSettings): Promise<TunnelRecord> {
  return ctx.locks.run(id, async () => {
    const current = findTunnel(ctx, id);
    if (!current) throw new AppError(404, TUNNEL_NOT_FOUND);
    const port = input.port ?? current.port;
    const next: TunnelRecord = { ...current, port, description: input.description === undefined ? current.description : input.description };
    const moves = port !== current.port;
    // checked and claimed in one synchronous run, as a create claims its port
    if (moves) checkPortFree(ctx, port, { exceptId: id, onField: true });
    const release = moves ? ctx.reservations.claimPort(port) : () => {};
    const { proxy } = ctx.system;
    const hostSteps: Step[] = moves
      ? [
          {
            failure: NGINX_FAILED,
            run: () => proxy.apply([putVhost(next, current.enabled, ctx.config.value)]),
            undo: () => proxy.apply([putVhost(current, current.enabled, ctx.config.value)]),
          },
          tunnelServerStep(ctx, id, { port, enabled: current.enabled }),
        ]
      : [];
    try {
      await runStepsOrFail('Failed to update tunnel', [
        ...hostSteps,
        {
          failure: STATE_FAILED,
          run: () =>
            ctx.store.tunnels.edit((tunnels) => {
              // only a delete removes records, and deletes of this id wait for this lock
              const fresh = tunnels.get(id);
              if (!fresh) throw new Error('the tunnel record disappeared');
              // access changes run outside this lock: the record's access as it is now stays
              const { access: _old, ...rest } = next;
              tunnels.put(fresh.access ? { ...rest, access: fresh.access } : rest);
            }),
        },
      ]);
    } finally {
      ctx.allowedPorts.clearPending(id);
      release();
    }
    return next;
  });
}
