import { AppError } from '../errors.ts';

export { commonNameOf } from './distinguished-name.ts';

export type Role = 'admin' | 'agent';

export interface AdminIdentity {
  role: 'admin';
  label: null;
  commonName: string;
  serial: string | null;
}

export interface AgentIdentity {
  role: 'agent';
  /** The part of the common name after `agent:`. */
  label: string;
  commonName: string;
  serial: string | null;
  capabilities: ReadonlySet<string>;
  allowedSites: readonly string[];
  /**
   * The label's active record names another certificate (the label was re-issued): this one has
   * no capabilities and may not act for the label at all.
   */
  superseded: boolean;
}

/** The caller of a public route (health, invitations, enrollment): no certificate was asked for. */
export interface AnonymousIdentity {
  role: 'anonymous';
  label: null;
}

export type Identity = AdminIdentity | AgentIdentity | AnonymousIdentity;

export const ANONYMOUS: AnonymousIdentity = { role: 'anonymous', label: null };

/** Development mode bypasses the certificate check with this identity. */
export const DEVELOPMENT_ADMIN: AdminIdentity = { role: 'admin', label: null, commonName: 'admin (development mode)', serial: null };

export const AGENT_PREFIX = 'agent:';

/** The refusal of a request without a usable client certificate. */
export const MTLS_REQUIRED = 'mTLS certificate required';

export function hasCapability(identity: Identity, capability: string): boolean {
  if (identity.role === 'admin') return true;
  return identity.role === 'agent' && identity.capabilities.has(capability);
}

/** Hex digits, optionally in groups separated by single colons (`0A:1B`). */
const SERIAL_FORMAT = /^[0-9a-fA-F]+(?::[0-9a-fA-F]+)*$/;

/** Serials compare as nginx prints them: uppercase hex without separators or leading zeros. */
export function normalizeSerial(serial: string): string {
  return serial.replaceAll(':', '').toUpperCase().replace(/^0+(?=.)/, '');
}

/**
 * X-SSL-Client-Serial normalized, null when absent. Anything but hex (colons allowed) is refused
 * like a missing certificate: `DEAD, 1000` must not be read as DEAD1000.
 */
export function serialFromHeader(raw: string | null): string | null {
  if (raw === null || raw === '') return null;
  if (!SERIAL_FORMAT.test(raw)) throw new AppError(403, MTLS_REQUIRED);
  return normalizeSerial(raw);
}
