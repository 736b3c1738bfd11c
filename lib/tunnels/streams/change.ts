// Enable, disable, edit and delete of a TCP or UDP tunnel: the same all-or-nothing steps, rollback
// and refusals as an HTTP tunnel's. A disabled stream tunnel has no server at all (nothing listens
// on its public port) and no grant; its record keeps the settings.
import { AppError } from '../../errors.ts';
import type { StreamRecord } from '../../state/schemas.ts';
import { NGINX_FAILED, runStepsOrFail, STATE_FAILED } from '../../steps.ts';
import { TUNNEL_NOT_FOUND } from '../context.ts';
import { tunnelServerStep } from '../steps.ts';
import { portUse, putStream, removeStream, type StreamContext } from './context.ts';
import { checkPublicPort } from './ports.ts';
import type { StreamSettings } from './schema.ts';
import type { StreamChange } from '../../system/streams/types.ts';
import { streamFileName } from '../../system/streams/render.ts';

function found(ctx: StreamContext, id: string): StreamRecord {
  const record = ctx.store.streams.get(id);
  if (!record) throw new AppError(404, TUNNEL_NOT_FOUND);
  return record;
}

function saveStep(ctx: StreamContext, id: string, change: (record: StreamRecord) => StreamRecord | null) {
  return {
    failure: STATE_FAILED,
    run: () =>
      ctx.store.streams.edit((streams) => {
        const record = streams.get(id);
        // only a delete removes records, and deletes of this id wait for this lock
        if (!record) throw new Error('the tunnel record disappeared');
        const next = change(record);
        if (next) streams.put(next);
        else streams.delete(id);
      }),
  };
}

/** What the stream proxy must do to go from one state of a tunnel to another (null: no server). */
function serverChanges(from: StreamRecord | null, to: StreamRecord | null): StreamChange[] {
  const changes: StreamChange[] = [];
  if (from && (!to || streamFileName(from) !== streamFileName(to))) changes.push(removeStream(from));
  if (to) changes.push(putStream(to));
  return changes;
}

const served = (record: StreamRecord) => (record.enabled ? record : null);

export function setStreamEnabled(ctx: StreamContext, id: string, enabled: boolean): Promise<StreamRecord> {
  return ctx.locks.run(id, async () => {
    const current = found(ctx, id);
    const next = { ...current, enabled };
    try {
      await runStepsOrFail('Failed to toggle tunnel', [
        // the same state again rewrites the server from the record: a repair, as an HTTP tunnel's
        { failure: NGINX_FAILED, run: () => ctx.system.streams.apply(serverChanges(served(current), served(next))), undo: () => ctx.system.streams.apply(serverChanges(served(next), served(current))) },
        tunnelServerStep(ctx, id, { port: current.tunnelPort, enabled }),
        saveStep(ctx, id, (record) => ({ ...record, enabled })),
      ]);
    } finally {
      ctx.allowedPorts.clearPending(id);
    }
    return next;
  });
}

export function deleteStream(ctx: StreamContext, id: string): Promise<void> {
  return ctx.locks.run(id, async () => {
    const current = found(ctx, id);
    try {
      await runStepsOrFail('Failed to delete tunnel', [
        { failure: NGINX_FAILED, run: () => ctx.system.streams.apply([removeStream(current)]), undo: () => ctx.system.streams.apply(serverChanges(null, served(current))) },
        tunnelServerStep(ctx, id, { port: current.tunnelPort, enabled: false }),
        saveStep(ctx, id, () => null),
      ]);
    } finally {
      ctx.allowedPorts.clearPending(id);
    }
  });
}

/** Public port, client port, sources, PROXY protocol, description; the tunnel listener's port stays. */
export function editStream(ctx: StreamContext, id: string, input: StreamSettings): Promise<StreamRecord> {
  return ctx.locks.run(id, async () => {
    const current = found(ctx, id);
    const next: StreamRecord = {
      ...current,
      ...(input.publicPort !== undefined ? { publicPort: input.publicPort } : {}),
      ...(input.port !== undefined ? { port: input.port } : {}),
      ...(input.allow !== undefined ? { allow: [...input.allow] } : {}),
      ...(input.proxyProtocol !== undefined ? { proxyProtocol: input.proxyProtocol } : {}),
      ...(input.description !== undefined ? { description: input.description } : {}),
    };
    if (next.proxyProtocol && next.protocol === 'udp') {
      throw new AppError(400, 'The PROXY protocol is offered for TCP tunnels only', { issues: [{ path: 'proxyProtocol', message: 'The PROXY protocol is offered for TCP tunnels only' }] });
    }
    const moves = next.publicPort !== current.publicPort;
    // the kernel's sockets are read only when the port moves: a 404 or another setting reads no /proc
    if (moves) checkPublicPort(portUse(ctx, await ctx.liveSockets()), next.protocol, next.publicPort, { exceptId: id, onField: true });
    const release = moves ? ctx.reservations.claimPort(next.publicPort) : () => undefined;
    try {
      await runStepsOrFail('Failed to update tunnel', [
        { failure: NGINX_FAILED, run: () => ctx.system.streams.apply(serverChanges(served(current), served(next))), undo: () => ctx.system.streams.apply(serverChanges(served(next), served(current))) },
        saveStep(ctx, id, (record) => ({ ...record, ...next, enabled: record.enabled })),
      ]);
    } finally {
      release();
    }
    return next;
  });
}
