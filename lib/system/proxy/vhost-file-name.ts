// The file name of a named vhost: `relay-<kind>-<fqdn>.conf`, unless that is longer than a file
// name the store can write. A name may be 253 characters (a domain of 246 and its `tunnel.`), and
// the file's atomic write puts a temp file beside it, 26 characters longer
// (lib/state/atomic-write.ts), within Linux's 255 per name: past MAX_FILE_NAME the name keeps as
// much of the fqdn as fits and ends in 16 hex digits of its SHA-256, so it stays one name's alone
// and still says whose it is. Names that fit keep the form every earlier release wrote.
import { createHash } from 'node:crypto';
import { isFqdn, MAX_FILE_NAME } from '../common/names.ts';

const HASH_DIGITS = 16;
const SHORTENED = new RegExp(`^[a-z0-9.-]+_[0-9a-f]{${HASH_DIGITS}}$`);

export function namedVhostFile(kind: string, fqdn: string): string {
  const whole = `relay-${kind}-${fqdn}.conf`;
  if (whole.length <= MAX_FILE_NAME) return whole;
  const hash = createHash('sha256').update(fqdn).digest('hex').slice(0, HASH_DIGITS);
  const head = fqdn.slice(0, MAX_FILE_NAME - `relay-${kind}-_${hash}.conf`.length);
  return `relay-${kind}-${head}_${hash}.conf`;
}

/** Whether `middle` (between `relay-<kind>-` and `.conf`) is what namedVhostFile puts there. */
export function isNamedVhostMiddle(name: string, middle: string): boolean {
  if (isFqdn(middle)) return name.length <= MAX_FILE_NAME;
  return name.length === MAX_FILE_NAME && SHORTENED.test(middle);
}
