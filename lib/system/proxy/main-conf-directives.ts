// Which of the http context's settings the default server's file would write (http-context.ts) the
// box's main configuration already sets: nginx refuses such a directive given twice ("is
// duplicate"), and admins often uncomment `server_names_hash_bucket_size 64;` in Debian's
// nginx.conf. Read by hand, not asked of `nginx -T` (36 ms against 4 ms here, cheap enough): `nginx -T`
// refuses a configuration that is already broken, and the usual broken one is exactly this
// duplicate (the operator's line added after the relay's file was written), which the next write
// of the default server must repair.
//
// The reading follows nginx's own rules as far as these two directives need: `#` starts a comment
// outside quotes, a statement ends at `;` or `{`, `include` takes a path (relative ones against the
// main file's directory) with glob wildcards, files in name order. The relay's own vhost files are
// not read: they are what is being written, and there may be a thousand of them.
import { readdir, readFile } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join } from 'node:path';
import { HTTP_CONTEXT_DIRECTIVES } from './http-context.ts';
import { isVhostName } from './templates.ts';

/** nginx's own bound on nested includes is its stack; this one keeps a loop of includes finite */
const MAX_DEPTH = 16;

/** What the default server's file must leave out: the http context's settings `mainConf` gives. */
export function httpContextSetInMainConf(mainConf: string): Promise<Map<string, string>> {
  return mainConfDirectives(mainConf, HTTP_CONTEXT_DIRECTIVES);
}

/**
 * The value the main configuration (and the files it includes, other than the relay's vhosts)
 * gives each of `names`, the last one read when set more than once. A file that cannot be read is
 * passed over, as its absence is nginx's problem to report, not this reading's.
 */
export async function mainConfDirectives(mainConf: string, names: readonly string[]): Promise<Map<string, string>> {
  const found = new Map<string, string>();
  const seen = new Set<string>();
  const visit = async (file: string, depth: number): Promise<void> => {
    if (depth > MAX_DEPTH || seen.has(file) || isVhostName(basename(file))) return;
    seen.add(file);
    const text = await readFile(file, 'utf8').catch(() => null);
    if (text === null) return;
    for (const words of statements(text)) {
      const [name, ...args] = words;
      if (name !== undefined && names.includes(name) && args[0] !== undefined) found.set(name, args[0]);
      if (name === 'include' && args[0] !== undefined) {
        const pattern = isAbsolute(args[0]) ? args[0] : join(dirname(mainConf), args[0]);
        for (const path of await expand(pattern)) await visit(path, depth + 1);
      }
    }
  };
  await visit(mainConf, 0);
  return found;
}

/** The statements of a file as lists of words, quotes removed; comments and block braces dropped. */
export function statements(text: string): string[][] {
  const out: string[][] = [];
  let words: string[] = [];
  let word: string | null = null;
  const endWord = () => {
    if (word !== null) words.push(word);
    word = null;
  };
  const endStatement = () => {
    endWord();
    if (words.length > 0) out.push(words);
    words = [];
  };
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === '"' || c === "'") {
      const close = text.indexOf(c, i + 1);
      const end = close === -1 ? text.length : close;
      word = (word ?? '') + text.slice(i + 1, end);
      i = end;
    } else if (c === '\\' && i + 1 < text.length) {
      word = (word ?? '') + text[++i];
    } else if (c === '#' && word === null) {
      const eol = text.indexOf('\n', i);
      i = eol === -1 ? text.length : eol;
    } else if (c === ';' || c === '{' || c === '}') {
      endStatement();
    } else if (/\s/.test(c)) {
      endWord();
    } else {
      word = (word ?? '') + c;
    }
  }
  endStatement();
  return out;
}

const GLOB = /[*?[]/;

/** The files a glob names, in name order (nginx's glob(3) sorts); a plain path as it is. */
async function expand(pattern: string): Promise<string[]> {
  if (!GLOB.test(pattern)) return [pattern];
  const parts = pattern.split('/');
  let paths = [parts[0] === '' ? '/' : parts[0]!];
  for (const part of parts.slice(1)) {
    if (part === '') continue;
    if (!GLOB.test(part)) {
      paths = paths.map((p) => join(p, part));
      continue;
    }
    const match = globRegExp(part);
    const next: string[] = [];
    for (const dir of paths) {
      const names = await readdir(dir).catch(() => [] as string[]);
      // glob(3) leaves dot files out unless the pattern starts with a dot
      next.push(...names.filter((n) => match.test(n) && (part.startsWith('.') || !n.startsWith('.'))).sort().map((n) => join(dir, n)));
    }
    paths = next;
  }
  return paths;
}

function globRegExp(part: string): RegExp {
  let re = '';
  for (let i = 0; i < part.length; i++) {
    const c = part[i]!;
    if (c === '*') re += '.*';
    else if (c === '?') re += '.';
    else if (c === '[') {
      const close = part.indexOf(']', i + 2);
      if (close === -1) re += '\\[';
      else {
        re += `[${part.slice(i + 1, close).replace(/^!/, '^').replace(/\\/g, '\\\\')}]`;
        i = close;
      }
    } else re += c.replace(/[.+^${}()|\\\]]/g, '\\$&');
  }
  return new RegExp(`^${re}$`);
}
