// certbot's renewal configuration (`renewal/<name>.conf`, configobj): the few values the move of
// an earlier release's lineages reads (which deploy hook, which account, where the archive is) and
// the rewrite of its paths from the old directories to the new ones. Text in, text out: no files.
import { basename, isAbsolute } from 'node:path';

const LINE = /^(\s*)([A-Za-z0-9_.@:-]+)(\s*=\s*)(.*?)(\s*)$/;

/** configobj quotes a value with a comma, `#` or outer blanks; the value itself is inside. */
function unquote(value: string): string {
  const m = /^(["'])(.*)\1$/.exec(value);
  return m ? m[2]! : value;
}

/**
 * The values of one section: '' the lines before the first section header (the lineage's paths),
 * 'renewalparams', 'webroot_map' (a subsection, `[[webroot_map]]`).
 */
export function renewalSection(text: string, section: string): Record<string, string> {
  const out: Record<string, string> = {};
  let current = '';
  for (const line of text.split('\n')) {
    const header = /^\s*\[+\s*([^\]]+?)\s*\]+\s*$/.exec(line);
    if (header) {
      current = header[1]!;
      continue;
    }
    const m = LINE.exec(line);
    if (m && current === section && !line.trimStart().startsWith('#')) out[m[2]!] = unquote(m[4]!);
  }
  return out;
}

/** Every hook the lineage names (renew_hook is certbot's stored --deploy-hook). */
export function renewalHooks(text: string): string[] {
  const params = renewalSection(text, 'renewalparams');
  return ['pre_hook', 'renew_hook', 'post_hook'].map((k) => params[k]).filter((v): v is string => Boolean(v));
}

/** Every absolute path a value names (comma lists item by item), in any section. */
export function renewalPaths(text: string): string[] {
  const out: string[] = [];
  for (const line of text.split('\n')) {
    const m = LINE.exec(line);
    if (!m || line.trimStart().startsWith('#')) continue;
    const value = m[4]!;
    const items = /^(["']).*\1$/.test(value) ? [unquote(value)] : value.split(',');
    for (const item of items.map((i) => i.trim())) if (isAbsolute(item)) out.push(item);
  }
  return out;
}

/**
 * The root helper's launcher asking for an nginx reload, as reloadNginxCommand (certs.ts) wrote it
 * since the root helper exists: `<absolute path>/relay-panel-root nginx-reload`, the path
 * single-quoted when it has shell syntax. No lineage of the operator's names it.
 */
export function isRootHelperReloadHook(hook: string): boolean {
  const m = /^(?:'([^']*)'|(\S+)) nginx-reload$/.exec(hook.trim());
  const path = m ? (m[1] ?? m[2])! : '';
  return isAbsolute(path) && basename(path) === 'relay-panel-root';
}

/** An old directory and the new one that takes its place. */
export type PathMove = readonly [from: string, to: string];

function movePath(path: string, moves: readonly PathMove[]): string {
  for (const [from, to] of moves) {
    if (path === from) return to;
    if (path.startsWith(`${from}/`)) return to + path.slice(from.length);
  }
  return path;
}

/**
 * Every value that is one of the old directories or a path inside one, moved to the new directory
 * (the longest old directory first, so nested ones go where they belong); comma lists
 * (`webroot_path = /var/www/html,`) item by item. Comments, keys, other values and the layout stay.
 */
export function rewriteRenewalPaths(text: string, moves: readonly PathMove[]): string {
  const ordered = moves.filter(([from, to]) => from !== to).sort((a, b) => b[0].length - a[0].length);
  return text
    .split('\n')
    .map((line) => {
      const m = LINE.exec(line);
      if (!m || line.trimStart().startsWith('#')) return line;
      const [, lead, key, eq, value, tail] = m as unknown as [string, string, string, string, string, string];
      const quote = /^(["']).*\1$/.test(value) ? value[0]! : '';
      const inner = quote ? value.slice(1, -1) : value;
      const moved = quote ? movePath(inner, ordered) : inner.split(',').map((item) => {
        const trimmed = item.trim();
        return trimmed ? item.replace(trimmed, movePath(trimmed, ordered)) : item;
      }).join(',');
      return `${lead}${key}${eq}${quote}${moved}${quote}${tail}`;
    })
    .join('\n');
}
