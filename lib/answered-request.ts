import type { Identity } from './auth/identity.ts';

/**
 * An answered request as the route table saw it: the pattern, never the raw URL. The HTTP layer
 * reports it (createApp's `onResponse`) and the audit log reads it; neither imports the other.
 */
export interface AnsweredRequest {
  method: string;
  /** The matched route pattern (a mounted one included); undefined when no route matched. */
  route: string | undefined;
  params: Readonly<Record<string, string>>;
  status: number;
  identity: Identity | undefined;
  /** A WebSocket handshake (status 101 once the edge took the socket). */
  upgrade: boolean;
}
