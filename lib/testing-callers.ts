// Who calls the testing kit's app (lib/testing.ts): the X-SSL-Client-* headers nginx sets for a
// client certificate of the panel's CA, and the serials the kit gives its agents' certificates.

/** Headers as nginx sets them (X-SSL-Client-*), for `fetch(path, { headers })`. */
export type CertificateHeaders = Record<string, string>;

/**
 * Who sends a request. An agent without a serial presents the one its kit gave the label
 * (`kit.agentSerial`); a DN is any subject, with serial B1 unless told, verified unless told.
 */
export type Caller = 'admin' | 'none' | { agent: string; serial?: string } | { dn: string; serial?: string; verify?: string };

// outside the sandbox CA's range (serials from 0x1000 up), so revoking issued certificates never hits it
export const ADMIN_SERIAL = 'AD0001';
const FIRST_AGENT_SERIAL = 0x2000;

/** What nginx passes on for a certificate of our CA with this common name and serial. */
export function certificateHeaders(commonName: string, serial: string): CertificateHeaders {
  return { 'x-ssl-client-verify': 'SUCCESS', 'x-ssl-client-dn': `CN=${commonName}`, 'x-ssl-client-serial': serial };
}

const serialUnknown = (label: string): never => {
  throw new Error(`agent '${label}' has no serial here: name it ({ agent, serial }) or ask its kit (kit.headers, kit.agentSerial)`);
};

/** The headers of `caller`; an agent without a serial gets `serialOf(label)`. */
export function callerHeaders(caller: Caller, serialOf: (label: string) => string = serialUnknown): CertificateHeaders {
  if (caller === 'none') return { 'x-ssl-client-verify': 'NONE' };
  if (caller === 'admin') return certificateHeaders('admin', ADMIN_SERIAL);
  if ('agent' in caller) return certificateHeaders(`agent:${caller.agent}`, caller.serial ?? serialOf(caller.agent));
  return { 'x-ssl-client-verify': caller.verify ?? 'SUCCESS', 'x-ssl-client-dn': caller.dn, 'x-ssl-client-serial': caller.serial ?? 'B1' };
}

/** One kit's agent serials: counted in hex from 2000 in the order labels are first named, unless one was given. */
export class AgentSerials {
  readonly #serials = new Map<string, string>();
  #next = FIRST_AGENT_SERIAL;

  of(label: string): string {
    let serial = this.#serials.get(label);
    if (serial === undefined) {
      serial = (this.#next++).toString(16).toUpperCase();
      this.#serials.set(label, serial);
    }
    return serial;
  }

  /** The label's certificate has this serial from now on. */
  set(label: string, serial: string): void {
    this.#serials.set(label, serial);
  }
}
