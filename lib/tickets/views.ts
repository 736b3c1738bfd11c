import type { TicketRecord, TransportConfig } from '../state/schemas.ts';

// What the ticket endpoints answer: shared by the ticket desk and the inbox cache.

export type TicketView = Pick<TicketRecord, 'id' | 'scope' | 'instanceId' | 'source' | 'target' | 'expiresAt'>;
export type InboxEntry = Omit<TicketView, 'target'> & { transport: TransportConfig };
export type TicketValidation = Omit<TicketView, 'id' | 'expiresAt'> & { valid: true; transport: TransportConfig };
/** What admins see of a ticket (Portlama's fields): the record, the session it opened and what its target is handed. */
export type AdminTicketView = TicketRecord & { sessionId: string | null; transport: TransportConfig | null };
