// RFC 4514 (RFC 2253) distinguished names as nginx's $ssl_client_s_dn gives them: OpenSSL's
// XN_FLAG_RFC2253 output, `CN=agent:laptop-1,OU=ops,O=Relay Corp`. Specials are escaped with a
// backslash, and bytes of non-ASCII UTF-8 as `\XX` hex pairs, so `café` arrives as `caf\C3\A9`.

/** Characters RFC 4514 lets a backslash escape (`#`, `=` and space matter only at the value's ends, but are accepted anywhere). */
const ESCAPABLE = new Set([',', '+', '"', '\\', '<', '>', ';', '#', '=', ' ']);
const HEX_PAIR = /^[0-9a-fA-F]{2}$/;
const utf8 = new TextDecoder('utf-8', { fatal: true });

export interface DnAttribute {
  /** The attribute type as written, upper-cased (`CN`, `OU`). */
  type: string;
  value: string;
}

/**
 * The attributes of every RDN in order, multi-valued RDNs (`+`) flattened; null when the DN is
 * malformed: a dangling or unknown escape, an attribute without `=`, or a value that is not UTF-8.
 */
export function attributesOf(dn: string): DnAttribute[] | null {
  const attributes: DnAttribute[] = [];
  let type = '';
  let bytes: number[] = [];
  let inValue = false;
  const finish = (): boolean => {
    if (!inValue) return false;
    try {
      attributes.push({ type: type.trim().toUpperCase(), value: utf8.decode(Uint8Array.from(bytes)) });
    } catch {
      return false;
    }
    type = '';
    bytes = [];
    inValue = false;
    return true;
  };
  for (let i = 0; i < dn.length; i++) {
    const ch = dn.charAt(i);
    if (!inValue) {
      if (ch === '=') inValue = true;
      else type += ch;
      continue;
    }
    if (ch === '\\') {
      const pair = dn.slice(i + 1, i + 3);
      if (HEX_PAIR.test(pair)) {
        bytes.push(parseInt(pair, 16));
        i += 2;
      } else if (ESCAPABLE.has(dn.charAt(i + 1))) {
        bytes.push(dn.charCodeAt(++i));
      } else {
        return null;
      }
      continue;
    }
    if (ch === ',' || ch === '+') {
      if (!finish()) return null;
      continue;
    }
    // A header value is a byte string: a character above 0xFF cannot have come from nginx.
    const code = ch.charCodeAt(0);
    if (code > 0xff) return null;
    bytes.push(code);
  }
  return finish() ? attributes : null;
}

// The same few certificates call again and again: parse each DN once. Bounded, since the header is
// the client's (through the proxy) and a flood of distinct DNs must not grow the process.
const COMMON_NAMES_KEPT = 512;
const commonNames = new Map<string, string | null>();

/** The first common name of the DN, or null when it has none or is malformed. */
export function commonNameOf(dn: string): string | null {
  const known = commonNames.get(dn);
  if (known !== undefined) return known;
  const commonName = attributesOf(dn)?.find((attribute) => attribute.type === 'CN')?.value ?? null;
  if (commonNames.size >= COMMON_NAMES_KEPT) commonNames.clear();
  commonNames.set(dn, commonName);
  return commonName;
}
