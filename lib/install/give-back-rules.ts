// What the give-back keeps and what it sends to quarantine, as text rules: no files here.
//
// Root's certbot (Debian's certbot.timer) will run over what stays, so what steers it is judged by
// how certbot itself reads it, not by what the earlier release wrote:
// - a renewal configuration (configobj): certbot restores renew_hook, pre_hook, post_hook and every
//   `<authenticator>_…` value (manual_auth_hook, manual_cleanup_hook) and config_dir, work_dir and
//   logs_dir from it, so any key naming a hook, and any line this reader cannot place, is a reason;
// - cli.ini (ConfigArgParse): read on every run of root's certbot, `key = value`, `key: value` and
//   `key value` alike, and argparse takes any unambiguous abbreviation (`pre-h`), so no list of bad
//   keys is complete: only the few harmless settings Debian's own cli.ini and an operator's usually
//   hold are kept, with plain values.
// Lines are split as Python's str.splitlines splits them (configobj does), so a \r, \v or \u2028
// cannot hide a second line from this reader.

/** Python's str.splitlines separators. */
const LINE_BREAK = /\r\n|[\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029]/;

export function splitLines(text: string): string[] {
  return text.replace(/^\ufeff/, '').split(LINE_BREAK);
}

export type GiveBackKind = 'certbot-config' | 'certbot-work' | 'plain' | 'webroot';

const LIVE_FILES = ['cert', 'chain', 'fullchain', 'privkey'];

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * certbot's own live link: `live/<name>/<kind>.pem` reading exactly
 * `../../archive/<name>/<kind><digits>.pem`. Anything else a link says is not certbot's.
 */
export function isCertbotLiveLink(rel: string, target: string): boolean {
  const m = /^live\/([^/]+)\/([a-z]+)\.pem$/.exec(rel);
  if (!m || !LIVE_FILES.includes(m[2]!)) return false;
  return new RegExp(`^\\.\\./\\.\\./archive/${escape(m[1]!)}/${m[2]}[0-9]+\\.pem$`).test(target);
}

/**
 * Why a panel-owned entry at this place goes to quarantine whatever it holds, or null. `rel` is
 * the entry's path inside the directory given back.
 */
export function quarantineArea(kind: GiveBackKind, rel: string): string | null {
  if (kind === 'certbot-config' && /^renewal-hooks\/(pre|post|deploy)\/[^/]+$/.test(rel)) {
    return "root's certbot would run it (a renewal hook of the panel's user cannot be told from the operator's)";
  }
  if (kind === 'certbot-work' && /^(backups|temp_checkpoint|IN_PROGRESS)(\/|$)/.test(rel)) {
    return "root's certbot would restore files from it (an installer checkpoint of the panel's user cannot be told from the operator's)";
  }
  return null;
}

/** A configuration file whose text decides whether it stays: renewal/<name>.conf or cli.ini. */
export function configFileKind(kind: GiveBackKind, rel: string): 'renewal' | 'cli.ini' | null {
  if (kind !== 'certbot-config') return null;
  if (rel === 'cli.ini') return 'cli.ini';
  if (/^renewal\/[^/]+\.conf$/.test(rel)) return 'renewal';
  return null;
}

const unquote = (v: string) => /^(["'])(.*)\1$/s.exec(v)?.[2] ?? v;
const emptyValue = (v: string) => unquote(v.trim()) === '';
const DIR_KEYS = new Set(['config_dir', 'work_dir', 'logs_dir']);

interface ConfLine { key: string; value: string }

/** configobj's `key = value` lines; null for a line it would read some other way (continued values, lists of sections). */
function renewalLines(text: string): { lines: ConfLine[]; odd: string | null } {
  const lines: ConfLine[] = [];
  for (const raw of splitLines(text)) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    if (/^\[+[^\[\]]+\]+$/.test(line)) continue;
    if (line.includes("'''") || line.includes('"""')) return { lines, odd: line };
    const m = /^(?:"([^"]*)"|'([^']*)'|([^=]*?))\s*=\s*(.*)$/.exec(line);
    if (!m) return { lines, odd: line };
    lines.push({ key: (m[1] ?? m[2] ?? m[3]!).trim(), value: m[4]! });
  }
  return { lines, odd: null };
}

/**
 * Why root's certbot must not read this renewal configuration as it is, or null. Absolute paths
 * are not judged here (renewalConfPaths: the caller checks who can write them).
 */
export function renewalConfHazard(text: string): string | null {
  const { lines, odd } = renewalLines(text);
  if (odd !== null) return `its line "${odd.slice(0, 80)}" is not one this check can read as certbot would`;
  for (const { key, value } of lines) {
    const k = key.toLowerCase().replace(/-/g, '_');
    if (k.includes('hook') && !emptyValue(value)) return `it names a hook (${key} = ${value.trim().slice(0, 120)}): root's certbot would run it`;
    if (DIR_KEYS.has(k) && !emptyValue(value) && !unquote(value.trim()).startsWith('/')) return `its ${key} is a relative path: root's certbot would resolve it wherever it runs`;
  }
  return null;
}

/** Every absolute path a renewal configuration names (comma lists item by item, quoted values whole). */
export function renewalConfPaths(text: string): string[] {
  const out: string[] = [];
  for (const { value } of renewalLines(text).lines) {
    const v = value.trim();
    const items = /^(["']).*\1$/s.test(v) ? [unquote(v)] : v.split(',');
    for (const item of items.map((i) => unquote(i.trim()))) if (item.startsWith('/')) out.push(item);
  }
  return out;
}

/** cli.ini settings kept: none runs a program or names a place. */
const CLI_INI_KEEP = new Set([
  'max-log-backups', 'preconfigured-renewal', 'rsa-key-size', 'key-type', 'elliptic-curve', 'email', 'agree-tos', 'no-eff-email',
  'eff-email', 'non-interactive', 'noninteractive', 'text', 'quiet', 'keep-until-expiring', 'keep', 'expand', 'staple-ocsp',
  'must-staple', 'reuse-key', 'no-reuse-key', 'hsts', 'uir', 'redirect', 'no-redirect', 'no-random-sleep-on-renew',
]);

/** Why root's certbot must not read this cli.ini as it is, or null. */
export function cliIniHazard(text: string): string | null {
  for (const raw of splitLines(text)) {
    const line = raw.trim();
    if (line === '' || /^[#;[]/.test(line)) continue;
    // ConfigArgParse's DefaultConfigFileParser: key, then `:`, `=` or blanks, then the value; ` #…` / ` ;…` a comment
    const m = /^([^:=;#\s]+?)(?:\s*[:=\s]\s*(.*?))?(?:\s+[;#].*)?$/.exec(line);
    if (!m) return `its line "${line.slice(0, 80)}" is not one this check can read as certbot would`;
    const key = m[1]!.replace(/^-+/, '').replace(/_/g, '-');
    const value = m[2] ?? '';
    if (key.toLowerCase().includes('hook') || ['pre-hook', 'post-hook', 'deploy-hook', 'renew-hook'].some((h) => h.startsWith(key.toLowerCase()))) {
      return `it sets ${m[1]}${value ? ` = ${value.slice(0, 120)}` : ''}: root's certbot would run it on every renewal`;
    }
    if (!CLI_INI_KEEP.has(key)) return `it sets ${m[1]}, which root's certbot would obey on every run (only settings that run nothing and name no place are kept)`;
    if (!/^[A-Za-z0-9@._+-]*$/.test(value)) return `its ${m[1]} has the value "${value.slice(0, 80)}"`;
  }
  return null;
}

/** A mode without setuid, setgid, and group or other write. */
export const safeMode = (mode: number) => mode & 0o7777 & ~0o6022;
