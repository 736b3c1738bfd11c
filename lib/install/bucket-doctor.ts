// doctor's look at an operator's own hash bucket sizes: when nginx's main configuration sets
// server_names_hash_bucket_size or map_hash_bucket_size, the default server's file leaves it out
// (main-conf-directives.ts) and the operator's value stands, so a name longer than it holds makes
// every later `nginx -t` fail ("could not build server_names_hash"). Said here before that happens.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { NAME_HASH_BUCKET_SIZE } from '../system/proxy/http-context.ts';
import { httpContextSetInMainConf } from '../system/proxy/main-conf-directives.ts';
import { isRouteText } from '../system/proxy/templates.ts';
import { relayVhostFiles } from './files.ts';

export interface BucketFinding { ok: boolean; message: string; fix?: string }

/** The bucket one name needs on 64-bit: a pointer, the name and 2 bytes rounded up to 8, a closing pointer (http-context.ts). */
export function bucketNeeded(length: number): number {
  return 8 + Math.ceil((length + 2) / 8) * 8 + 8;
}

/** The longest exact server_name, and the longest shared route's name, among the relay's written vhosts. */
async function longestNames(sitesAvailable: string): Promise<{ server: string; route: string }> {
  const longest = { server: '', route: '' };
  for (const name of await relayVhostFiles(sitesAvailable)) {
    const text = await readFile(join(sitesAvailable, name), 'utf8').catch(() => '');
    const names = isRouteText(text)
      ? [...text.matchAll(/^(\S+) \d+;$/gm)].map((m) => ['route', m[1]!] as const)
      : [...text.matchAll(/server_name ([^;]+);/g)].flatMap((m) => m[1]!.split(/\s+/).filter((n) => n !== '_' && !n.startsWith('*')).map((n) => ['server', n] as const));
    for (const [kind, n] of names) if (n.length > longest[kind].length) longest[kind] = n;
  }
  return longest;
}

export async function bucketFindings(mainConf: string, sitesAvailable: string): Promise<BucketFinding[]> {
  const theirs = await httpContextSetInMainConf(mainConf);
  if (theirs.size === 0) return [{ ok: true, message: `server_names_hash_bucket_size and map_hash_bucket_size are the relay's ${NAME_HASH_BUCKET_SIZE} (relay-default.conf)` }];
  const longest = await longestNames(sitesAvailable);
  const out: BucketFinding[] = [];
  for (const [directive, value] of theirs) {
    const name = directive === 'map_hash_bucket_size' ? longest.route : longest.server;
    const size = /^\d+$/.test(value) ? Number(value) : NaN;
    const need = bucketNeeded(name.length);
    const ok = Number.isFinite(size) && (name === '' || size >= need);
    out.push({
      ok,
      message: ok
        ? `${directive} ${value} is set in ${mainConf} (or a file it includes); ${name === '' ? 'no relay name uses it yet' : `it holds the longest name (${name.length} characters, ${need} bytes)`}`
        : `${directive} ${value} in ${mainConf} (or a file it includes) is below the ${need} bytes ${name} (${name.length} characters) needs: nginx -t fails once a name that long is written`,
      fix: `set ${directive} ${NAME_HASH_BUCKET_SIZE}; there (or remove it: relay-default.conf then sets ${NAME_HASH_BUCKET_SIZE}), then: nginx -t && systemctl reload nginx`,
    });
  }
  return out;
}
