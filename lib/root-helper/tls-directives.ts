// The directives of a vhost's text that make nginx's root master load TLS material, read as nginx
// reads its configuration (words split on white space, `;`, `{` and `}`; quotes and backslashes as
// ngx_conf_read_token takes them; a `#` that starts a word comments out the rest of the line), so
// neither a comment nor an odd layout (two directives on a line, an unquoted path) hides one.
import { posix } from 'node:path';
import { SNI_DATA } from '../system/proxy/sni-map.ts';

export const TLS_DIRECTIVES = ['ssl_certificate', 'ssl_certificate_key', 'ssl_client_certificate', 'ssl_crl'] as const;
export type TlsDirective = (typeof TLS_DIRECTIVES)[number];

export interface TlsPathDirective {
  directive: TlsDirective;
  /** the path as nginx reads it (quotes and escapes taken away) */
  path: string;
  /** where the argument's text is, quotes included: what a rewrite replaces */
  start: number;
  end: number;
}

interface Word {
  value: string;
  start: number;
  end: number;
}

const SPACE = /\s/;
const ENDS_WORD = /[\s;{}]/;

/** nginx's unescaping (ngx_conf_read_token): \" \' \\ are the character, \t \r \n control characters, any other \x stays. */
function unescape(raw: string): string {
  return raw.replace(/\\(.)/gs, (all, c: string) => {
    if (c === '"' || c === "'" || c === '\\') return c;
    if (c === 't') return '\t';
    if (c === 'r') return '\r';
    if (c === 'n') return '\n';
    return all;
  });
}

/** Every statement's words, in order; a block's header and its closing brace end a statement as `;` does. */
function statements(text: string): Word[][] {
  const out: Word[][] = [];
  let words: Word[] = [];
  const end = () => {
    if (words.length > 0) out.push(words);
    words = [];
  };
  let i = 0;
  while (i < text.length) {
    const c = text[i]!;
    if (SPACE.test(c)) {
      i++;
    } else if (c === '#') {
      while (i < text.length && text[i] !== '\n') i++;
    } else if (c === ';' || c === '{' || c === '}') {
      end();
      i++;
    } else if (c === '"' || c === "'") {
      const start = i++;
      while (i < text.length && text[i] !== c) i += text[i] === '\\' ? 2 : 1;
      i = Math.min(i + 1, text.length);
      words.push({ value: unescape(text.slice(start + 1, i - 1)), start, end: i });
    } else {
      const start = i;
      while (i < text.length && !ENDS_WORD.test(text[i]!)) i += text[i] === '\\' ? 2 : 1;
      i = Math.min(i, text.length);
      words.push({ value: unescape(text.slice(start, i)), start, end: i });
    }
  }
  end();
  return out;
}

/** The TLS directives of a vhost's text with the path each names. */
export function tlsPathDirectives(text: string): TlsPathDirective[] {
  const found: TlsPathDirective[] = [];
  for (const [name, argument] of statements(text)) {
    if (!argument || !(TLS_DIRECTIVES as readonly string[]).includes(name!.value)) continue;
    found.push({ directive: name!.value as TlsDirective, path: argument.value, start: argument.start, end: argument.end });
  }
  return found;
}

/** Whether nginx would load root's own TLS material: a copy, or the per-name map's entries (sni-map.ts), root's files too. */
export function isRootTlsSource(tlsDir: string, path: string): boolean {
  return path === SNI_DATA || isCopyPath(tlsDir, path);
}

/**
 * Whether nginx would load a file in root's directory of copies: below tlsDir, no `..` or `.`, no
 * variable (nginx fills `$ssl_server_name` from what a client sends), no control character.
 */
export function isCopyPath(tlsDir: string, path: string): boolean {
  return path.startsWith(`${tlsDir}/`) && posix.normalize(path) === path && !path.endsWith('/') && !/[$\x00-\x1f]/.test(path);
}
