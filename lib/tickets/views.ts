import type { TicketRecord, TransportConfig } from '../state/schemas.ts';

// What the ticket endpoints answer: shared by the ticket desk and the inbox cache.

export type TicketView = Pick<TicketRecord, 'id' | 'scope' | 'instanceId' | 'source' | 'target' | 'expiresAt'>;
export type InboxEntry = Omit<TicketView, 'target'> & { transport: TransportConfig };
export type TicketValidation = Omit<TicketView, 'id' | 'expiresAt'> & { valid: true; transport: TransportConfig };
