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

export function hasCapability(identity: Identity, capability: string): boolean {
  if (identity.role === 'admin') return true;
  return identity.role === 'agent' && identity.capabilities.has(capability);
}

/** Serials compare as nginx prints them: uppercase hex without separators or leading zeros. */
export function normalizeSerial(serial: string): string {
  const hex = serial.replace(/[^0-9a-fA-F]/g, '').toUpperCase().replace(/^0+(?=.)/, '');
  return hex;
}

/**
 * The common name in an RFC 2253 distinguished name as nginx's $ssl_client_s_dn gives it
 * (`CN=agent:laptop-1,OU=ops,O=Relay Corp`; `,` `+` `\` `"` `<` `>` `;` escaped with a backslash).
 */
export function commonNameOf(dn: string): string | null {
  let attribute = '';
  let value = '';
  let inValue = false;
  const take = (): string | null => (attribute.trim().toUpperCase() === 'CN' ? value : null);
  for (let i = 0; i < dn.length; i++) {
    const ch = dn[i];
    if (ch === '\\' && i + 1 < dn.length) {
      const hex = dn.slice(i + 1, i + 3);
      if (/^[0-9a-fA-F]{2}$/.test(hex)) {
        value += String.fromCharCode(parseInt(hex, 16));
        i += 2;
      } else {
        value += dn[++i];
      }
      continue;
    }
    if (!inValue) {
      if (ch === '=') inValue = true;
      else attribute += ch;
      continue;
    }
    if (ch === ',' || ch === '+') {
      const found = take();
      if (found !== null) return found;
      attribute = '';
      value = '';
      inValue = false;
      continue;
    }
    value += ch;
  }
  return inValue ? take() : null;
}
