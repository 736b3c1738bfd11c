import type { TicketInstanceRecord, TicketScopeRecord, TransportConfig } from '../state/schemas.ts';

/**
 * What a ticket's target needs to reach the instance: the instance's own strategies and direct
 * address, with the scope's protocol, port and (when the instance names none) preferred strategy.
 */
export function ticketTransport(instance: TicketInstanceRecord, scope: TicketScopeRecord | undefined): TransportConfig {
  const declared = scope?.transport;
  return {
    strategies: instance.transport.strategies,
    preferred: instance.transport.preferred ?? declared?.preferred,
    protocol: declared?.protocol,
    port: declared?.port,
    ...(instance.transport.direct && { direct: instance.transport.direct }),
  };
}
