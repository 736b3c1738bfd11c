import { AppError } from '../errors.ts';
import type { TunnelRecord } from '../state/schemas.ts';
import { runStepsOrFail } from '../steps.ts';
import { desiredTunnel } from '../host-state/desired.ts';
import { hostRepairSteps, vhostStateOf } from './host-repair.ts';
import { appVhost } from '../host-state/vhost-specs.ts';
import { findTunnel, putVhost, TUNNEL_NOT_FOUND, type TunnelContext } from './context.ts';
import { NGINX_FAILED, STATE_FAILED, tunnelServerStep, tunnelServerSyncStep } from './steps.ts';

/**
 * Enable: vhost written and linked, port granted. Disable: vhost unlinked (file kept), port
 * withdrawn. The authfile is rewritten in place, which chisel reloads by itself; chisel is
 * restarted only when the disabled port's session is still live, to free its listener
 * (revoked-sessions.ts). Every client session then reconnects; agent-config gives one session per
 * tunnel, so only the disabled tunnel's session is refused. Setting the state a
 * tunnel already has repairs the host when it is out of step with the record (a vhost lost in a
 * crash), and changes nothing otherwise.
 */
export function setTunnelEnabled(ctx: TunnelContext, id: string, enabled: boolean): Promise<TunnelRecord> {
  return ctx.locks.run(id, async () => {
    const current = findTunnel(ctx, id);
    if (!current) throw new AppError(404, TUNNEL_NOT_FOUND);
    if (current.enabled === enabled) {
      const desired = desiredTunnel(current, ctx.config.value);
      const repairs = hostRepairSteps(ctx, desired, await vhostStateOf(ctx, desired));
      if (repairs.length > 0) await runStepsOrFail('Failed to toggle tunnel', [...repairs, tunnelServerSyncStep(ctx)]);
      return current;
    }
    const { proxy } = ctx.system;
    const name = proxy.vhostName(appVhost(current));
    const link = () => proxy.apply([putVhost(current, true, ctx.config.value)]);
    const unlink = () => proxy.apply([{ op: 'disable', name }]);
    try {
      await runStepsOrFail('Failed to toggle tunnel', [
        { failure: NGINX_FAILED, run: enabled ? link : unlink, undo: enabled ? unlink : link },
        tunnelServerStep(ctx, id, { port: current.port, enabled }),
        {
          failure: STATE_FAILED,
          run: () =>
            ctx.store.tunnels.edit((tunnels) => {
              const record = tunnels.get(id);
              // only a delete removes records, and deletes of this id wait for this lock
              if (!record) throw new Error('the tunnel record disappeared');
              tunnels.put({ ...record, enabled });
            }),
        },
      ]);
    } finally {
      ctx.allowedPorts.clearPending(id);
    }
    // the save changed only `enabled`, and every change of this record holds this lock
    return { ...current, enabled };
  });
}
