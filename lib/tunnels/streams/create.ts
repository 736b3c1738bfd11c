import { randomUUID } from 'node:crypto';
import { isoNow } from '../../clock.ts';
import type { StreamRecord } from '../../state/schemas.ts';
import { NGINX_FAILED, runStepsOrFail, STATE_FAILED } from '../../steps.ts';
import { tunnelServerStep } from '../steps.ts';
import { portUse, putStream, removeStream, type StreamContext } from './context.ts';
import { checkPublicPort, pickTunnelPort } from './ports.ts';
import type { StreamCreate } from './schema.ts';

/**
 * Stream server, tunnel server, record, in that order, undone in reverse on a failure; no
 * certificate. The public port and the tunnel listener's port are checked and claimed in one
 * synchronous run after the kernel's sockets were read.
 */
export async function createStream(ctx: StreamContext, input: StreamCreate): Promise<StreamRecord> {
  const live = await ctx.liveSockets();
  const use = portUse(ctx, live);
  // on its field, as the edit's: the panel's form shows it under the public port typed
  checkPublicPort(use, input.protocol, input.publicPort, { onField: true });
  const tunnelPort = pickTunnelPort(use, new Set([input.publicPort]));
  const releases = [ctx.reservations.claimPort(input.publicPort), ctx.reservations.claimPort(tunnelPort)];
  const stream: StreamRecord = {
    id: randomUUID(),
    protocol: input.protocol,
    publicPort: input.publicPort,
    port: input.port,
    tunnelPort,
    allow: [...input.allow],
    proxyProtocol: input.proxyProtocol,
    description: input.description,
    enabled: true,
    createdAt: isoNow(ctx.clock),
  };
  try {
    await runStepsOrFail('Failed to create tunnel', [
      { failure: NGINX_FAILED, run: () => ctx.system.streams.apply([putStream(stream)]), undo: () => ctx.system.streams.apply([removeStream(stream)]) },
      tunnelServerStep(ctx, stream.id, { port: tunnelPort, enabled: true }),
      { failure: STATE_FAILED, run: () => ctx.store.streams.edit((streams) => streams.put(stream)) },
    ]);
  } finally {
    ctx.allowedPorts.clearPending(stream.id);
    for (const release of releases) release();
  }
  return stream;
}
