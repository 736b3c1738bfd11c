// A start asks about a vhost only when its stamp is not current (vhost-stamps.ts), but the default
// server's right text also depends on nginx's main configuration: an operator who uncomments
// `server_names_hash_bucket_size 64;` after the relay's file was written makes every `nginx -t`
// fail ("is duplicate") while that file's stamp still looks current. So the default server is
// looked at again when the http context lines it holds are not those nginx.conf now calls for.
import { readFile } from 'node:fs/promises';
import type { VhostSpec } from '../types.ts';
import { httpContextLines } from './http-context.ts';
import { httpContextSetInMainConf } from './main-conf-directives.ts';

/**
 * Whether a written vhost may be stale for a reason outside its own file: the default server's,
 * against `mainConf`. Any other vhost is answered false at once, without a promise (a start asks of every vhost).
 */
export function defaultServerDrift(mainConf: string): (spec: VhostSpec, path: string) => false | Promise<boolean> {
  return (spec, path) => (spec.kind === 'default' ? defaultDrifted(mainConf, path) : false);
}

async function defaultDrifted(mainConf: string, path: string): Promise<boolean> {
  const text = await readFile(path, 'utf8').catch(() => null);
  if (text === null) return false;
  // a main file the panel's user cannot read counts as setting nothing: at worst one helper call that rewrites nothing
  const lines = httpContextLines(await httpContextSetInMainConf(mainConf));
  return !lines.every((line) => text.includes(`\n${line}\n`));
}
