// Root's copies of the TLS material nginx's root master loads (root never loads a file the panel's user can write): the
// panel's user owns the certificates, keys, client CA and CRL, so nginx never names them; the root
// helper copies each, after checking owner, type and content, into config nginx.tlsDir.
//   - a vhosts change: every entry a put or enable names is read and checked first; one refused
//     source refuses the whole change, and nothing is written (stageForVhosts);
//   - nginx-test and nginx-reload (certbot's deploy hook after a renewal, the panel after a
//     revocation): every entry is read again; a refused or missing source keeps the copy that was
//     there, with one line in the helper's log, and the rest goes on (restageTlsCopies); the
//     entries kept are answered, so the helper can refuse a reload that keeps an old CRL;
//   - after a change, entries no relay vhost names any more are removed (pruneTlsCopies).
// A source that does not exist is not a refusal: a vhost may be written before its certificate
// is issued, and nginx -t then names the missing copy, as it named the missing original before.
import { join } from 'node:path';
import { mapAtMost } from '../map-at-most.ts';
import { RefusedPathError } from '../system/common/owned-file.ts';
import type { SystemConfig } from '../system/config.ts';
import { SystemError } from '../system/types.ts';
import { CA_FILE, CERT_FILE, CLIENT_CA_ENTRY, CRL_FILE, entriesOfVhost, KEY_FILE } from './tls-entries.ts';
import { ensureCopiesDir, listEntries, readCopy, removeEntry, writeCopy } from './tls-dir.ts';
import { readSource, tlsSources, type TlsSource } from './tls-sources.ts';
import { namedEntries } from './vhost-entries.ts';

export { relayVhostNames } from './vhost-entries.ts';
import { checkCertificates, checkCrl, checkKeyPair, checkPrivateKey } from './tls-validate.ts';

export type PreparedEntry =
  | { entry: string; missing: null; writes: Array<{ path: string; bytes: Buffer }> }
  | { entry: string; missing: string };

/** Entries read at once: a batch of 2000 tunnels must not open 4000 files together. */
const AT_ONCE = 16;

/**
 * Reads an entry's sources and compares them with its copies; what differs is checked (all of the
 * entry's files together: a new key needs its certificate) and returned to be written. Throws a
 * RefusedPathError naming the refused source.
 */
export async function prepareEntry(config: SystemConfig, entry: string, owners: readonly number[]): Promise<PreparedEntry> {
  const dir = join(config.nginx.tlsDir, entry);
  const files: Array<{ source: TlsSource; bytes: Buffer }> = [];
  for (const source of tlsSources(config, entry)) {
    try {
      files.push({ source, bytes: await readSource(source, owners) });
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') return { entry, missing: source.path };
      if (e instanceof RefusedPathError || !code) throw e;
      throw new RefusedPathError(source.path, `unreadable (${code})`);
    }
  }
  const copies = await Promise.all(files.map((f) => readCopy(join(dir, f.source.copy), f.source.maxBytes)));
  const changed = files.filter((f, i) => !copies[i]?.equals(f.bytes));
  // the copies were checked when written: unchanged sources need no second look
  if (changed.length > 0) checkMaterial(entry, new Map(files.map((f) => [f.source.copy, f])));
  return { entry, missing: null, writes: changed.map((f) => ({ path: join(dir, f.source.copy), bytes: f.bytes })) };
}

function checkMaterial(entry: string, files: Map<string, { source: TlsSource; bytes: Buffer }>): void {
  const file = (name: string) => files.get(name)!;
  if (entry === CLIENT_CA_ENTRY) {
    checkCertificates(file(CA_FILE).source.path, file(CA_FILE).bytes);
    checkCrl(file(CRL_FILE).source.path, file(CRL_FILE).bytes);
    return;
  }
  const [served] = checkCertificates(file(CERT_FILE).source.path, file(CERT_FILE).bytes);
  const key = checkPrivateKey(file(KEY_FILE).source.path, file(KEY_FILE).bytes);
  checkKeyPair(file(KEY_FILE).source.path, served!, key);
}

async function writeEntry(tlsDir: string, prepared: PreparedEntry): Promise<void> {
  if (prepared.missing !== null || prepared.writes.length === 0) return;
  await ensureCopiesDir(tlsDir);
  await ensureCopiesDir(join(tlsDir, prepared.entry));
  for (const { path, bytes } of prepared.writes) await writeCopy(path, bytes);
}

/** `each` of the items, AT_ONCE at a time, the answers in the items' order. */
export function inBatches<T, R>(items: readonly T[], each: (item: T) => Promise<R>): Promise<R[]> {
  return mapAtMost(items, AT_ONCE, (item) => each(item));
}

/**
 * Before vhosts named by file name alone are written (an earlier release's, rewritten to the copies
 * of their own name's entries): stageEntries of what their names stand for.
 */
export async function stageForVhosts(config: SystemConfig, vhostNames: string[], owners: readonly number[]): Promise<void> {
  await stageEntries(config, vhostNames.flatMap(entriesOfVhost), owners);
}

/**
 * Before a vhosts change is written: the entries its vhosts load (a put's from its checked spec, an
 * enable's from its written file), all read and checked before any is written. A refused source
 * refuses the change: `Refused: <path> refused: <reason>`.
 */
export async function stageEntries(config: SystemConfig, wanted: string[], owners: readonly number[]): Promise<void> {
  const entries = [...new Set(wanted)];
  let prepared: PreparedEntry[];
  try {
    prepared = await inBatches(entries, (entry) => prepareEntry(config, entry, owners));
  } catch (e) {
    if (e instanceof RefusedPathError) throw new SystemError(`Refused: ${e.message}`, undefined, undefined, 'refused');
    throw e;
  }
  for (const entry of prepared) await writeEntry(config.nginx.tlsDir, entry);
}

/** An entry whose copy was not made again: its source was refused, unreadable or gone. */
export interface KeptEntry {
  entry: string;
  /** `<path> refused: <reason>`, `<path> does not exist` */
  why: string;
  /** whether a relay vhost names it (an entry no vhost names any more loads nothing) */
  named: boolean;
}

/**
 * Before nginx -t and a reload: every entry in tlsDir and every entry a relay vhost names, read
 * again (a renewal, a new CRL). A source that is refused, missing or unreadable leaves its copy as
 * it was (nginx keeps serving what it served), says so in one line of `log`, and is answered: a
 * lineage's old certificate still serves, but the client CA's old CRL leaves a revocation out.
 */
export async function restageTlsCopies(config: SystemConfig, owners: readonly number[], log: (line: string) => void): Promise<KeptEntry[]> {
  const { tlsDir } = config.nginx;
  const present = new Set(await listEntries(tlsDir));
  const named = await namedEntries(config);
  const keptEntries: KeptEntry[] = [];
  const kept = (entry: string, why: string) => {
    keptEntries.push({ entry, why, named: named.has(entry) });
    log(`tls copies: ${present.has(entry) ? `kept ${join(tlsDir, entry)} as it was` : `no copy in ${join(tlsDir, entry)}`}: ${why}`);
  };
  await inBatches([...new Set([...present, ...named])], async (entry) => {
    try {
      const prepared = await prepareEntry(config, entry, owners);
      // a vhost written before its certificate was issued: nothing to say until there is a copy
      if (prepared.missing !== null) {
        if (present.has(entry)) kept(entry, `${prepared.missing} does not exist`);
        return;
      }
      await writeEntry(tlsDir, prepared);
    } catch (e) {
      kept(entry, (e as Error).message);
    }
  });
  return keptEntries;
}

/** Removes the entries no relay vhost in sites-available names; answers their names. */
export async function pruneTlsCopies(config: SystemConfig): Promise<string[]> {
  const named = await namedEntries(config);
  const unused = (await listEntries(config.nginx.tlsDir)).filter((entry) => !named.has(entry));
  for (const entry of unused) await removeEntry(config.nginx.tlsDir, entry);
  return unused;
}
