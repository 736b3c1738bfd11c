import type { TicketInstanceRecord, TicketScopeRecord, TransportConfig } from '../state/schemas.ts';

/**
 * What a ticket's target needs to reach the instance: the instance's own strategies and direct
 * address, with the scope's protocol and port.
 */
export function ticketTransport(instance: TicketInstanceRecord, scope: TicketScopeRecord | undefined): TransportConfig {
  const declared = scope?.transport;
  return {
    strategies: instance.transport.strategies,
    preferred: preferredStrategy(instance.transport, declared?.preferred),
    protocol: declared?.protocol,
    port: declared?.port,
    ...(instance.transport.direct && { direct: instance.transport.direct }),
  };
}

/**
 * Always one of the instance's strategies: its own preferred one (registration checks it is
 * offered), else the scope's when the instance offers it, else the instance's first.
 */
function preferredStrategy(offered: TransportConfig, scopePreferred: TransportConfig['preferred']): TransportConfig['preferred'] {
  if (offered.preferred && offered.strategies.includes(offered.preferred)) return offered.preferred;
  if (scopePreferred && offered.strategies.includes(scopePreferred)) return scopePreferred;
  return offered.strategies[0];
}
