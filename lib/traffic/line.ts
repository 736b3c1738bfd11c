// One traffic line as nginx's traffic log sends it (lib/system/proxy/templates.ts trafficLog), with
// bounds on every field: anything local may send to the traffic port, and a single line past what
// nginx can log (a latency of 1e308 s, a byte count past 2^53) would otherwise spoil a vhost's sums
// until the panel restarts. A line outside them is not a traffic line.
// The bounds are checked by hand, not by a zod schema: a line is checked per request, and the
// schema's safeParse cost as much as JSON.parse itself (test/unit/traffic/line-bounds.test.ts holds
// the schema this check must agree with).

/** `site:` and the longest domain name (253); the known-names check (meter.ts) is the real gate. */
export const MAX_NAME_LENGTH = 5 + 253;
/** Syslog header, the JSON with the longest name and `$upstream_status`: far below; a longer datagram is not parsed at all. */
export const MAX_LINE_LENGTH = 2048;
/** $request_length and $bytes_sent of one request: 1 TiB, far past any body or file a relay passes. */
export const MAX_REQUEST_BYTES = 2 ** 40;
/** $request_time of one request, in seconds: a day (nginx's timeouts end any request long before). */
export const MAX_REQUEST_SECONDS = 86_400;

export interface TrafficLine {
  /** the vhost's name: `app:<fqdn>` or `site:<fqdn>` */
  v: string;
  /** nginx's `000` (no status was sent) is not counted: it is no answer to count */
  s: number;
  in: number;
  out: number;
  t: number;
}

const isInteger = (x: unknown, min: number, max: number): x is number => typeof x === 'number' && Number.isInteger(x) && x >= min && x <= max;
const isBytes = (x: unknown): x is number => isInteger(x, 0, MAX_REQUEST_BYTES);

/** The JSON value of a line, the syslog header before it (`<190>Nov 27 05:28:33 relay: `) skipped; undefined: none. */
export function lineJson(text: string): unknown {
  if (text.length > MAX_LINE_LENGTH) return undefined;
  const start = text.indexOf('{');
  if (start < 0) return undefined;
  try {
    return JSON.parse(text.slice(start));
  } catch {
    return undefined;
  }
}

/** The fields of a parsed line within their bounds, or null. */
export function boundedLine(json: unknown): TrafficLine | null {
  if (typeof json !== 'object' || json === null || Array.isArray(json)) return null;
  const { v, s, in: bytesIn, out, t } = json as Record<string, unknown>;
  if (typeof v !== 'string' || v.length > MAX_NAME_LENGTH) return null;
  if (!isInteger(s, 100, 599) || !isBytes(bytesIn) || !isBytes(out)) return null;
  if (typeof t !== 'number' || !Number.isFinite(t) || t < 0 || t > MAX_REQUEST_SECONDS) return null;
  return { v, s, in: bytesIn, out, t };
}

/** A whole line: its JSON, within bounds; null when it is not a traffic line. */
export function parseTrafficLine(text: string): TrafficLine | null {
  return boundedLine(lineJson(text));
}
