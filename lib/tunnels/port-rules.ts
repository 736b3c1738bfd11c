import { badRequest } from '../errors.ts';
import type { TunnelContext } from './context.ts';

/**
 * Loopback ports of the box's own listeners. A tunnel's reverse port binds 127.0.0.1 on the box,
 * so granting one of these would let a tunnel client stand in for the panel or the portal, and a
 * vhost to one would expose the panel's listener behind a mere portal login.
 */
function ownServicePorts(ctx: TunnelContext): ReadonlySet<number> {
  const { listen, system } = ctx.config.value;
  return new Set([listen.port, ...Object.values(system.ports)]);
}

/**
 * The spec's port rules of a create, shared by an edit: none of the box's own ports, none another
 * tunnel holds or a create in flight has claimed. `details.issues` (the same message on `port`) only
 * when `onField`, so the edit form can show it under the field without changing create's answer.
 */
export function checkPortFree(ctx: TunnelContext, port: number, options: { exceptId?: string; onField?: boolean } = {}): void {
  const refuse = (message: string) => badRequest(message, options.onField ? { issues: [{ path: 'port', message }] } : undefined);
  if (ownServicePorts(ctx).has(port)) throw refuse(`Port ${port} is reserved for the relay's own services`);
  // a TCP or UDP tunnel's public server and its loopback listener hold their ports for every protocol
  const stream = ctx.store.streams.value.some((s) => s.publicPort === port || s.tunnelPort === port);
  if (stream || ctx.reservations.hasPort(port) || ctx.store.tunnels.value.some((t) => t.port === port && t.id !== options.exceptId)) {
    throw refuse(`Port ${port} is already in use by another tunnel`);
  }
}
