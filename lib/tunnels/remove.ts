import { AppError } from '../errors.ts';
import { runStepsOrFail } from '../steps.ts';
import { appVhost } from '../host-state/vhost-specs.ts';
import { findTunnel, putVhost, TUNNEL_NOT_FOUND, type TunnelContext } from './context.ts';
import { NGINX_FAILED, STATE_FAILED, tunnelServerStep } from './steps.ts';

/** Vhost removed, port withdrawn, record removed; the certificate stays (a re-create reuses it). */
export function deleteTunnel(ctx: TunnelContext, id: string): Promise<void> {
  return ctx.locks.run(id, async () => {
    const current = findTunnel(ctx, id);
    if (!current) throw new AppError(404, TUNNEL_NOT_FOUND);
    const { proxy } = ctx.system;
    try {
      await runStepsOrFail('Failed to delete tunnel', [
        {
          failure: NGINX_FAILED,
          run: () => proxy.apply([{ op: 'remove', name: proxy.vhostName(appVhost(current)) }]),
          undo: () => proxy.apply([putVhost(current, current.enabled, ctx.config.value)]),
        },
        tunnelServerStep(ctx, id, { port: current.port, enabled: false }),
        {
          failure: STATE_FAILED,
          run: () =>
            ctx.store.tunnels.edit((tunnels) => void tunnels.delete(id)),
        },
      ]);
    } finally {
      ctx.allowedPorts.clearPending(id);
    }
  });
}
