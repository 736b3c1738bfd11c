// The vhosts an earlier release wrote name the panel's own files (certbot's live links, the
// self-signed certificates, the client CA and its CRL), and nginx's root master loads whatever a
// vhost names. Only the panel's start-up refresh would move them to root's copies, and a hostile
// panel never sends it; so root does it itself:
//   - rewriteTlsPaths: the installer, as root and in its own process (install and upgrade), moves
//     every relay vhost's TLS directives to the copies, after staging those copies;
//   - refuseForeignTlsPaths: the helper refuses to let nginx load its configuration (a test, a
//     reload, a start) while a relay vhost still names anything outside tlsDir.
// With runAs null (`--user root`) the files are root's own: nothing to rewrite or refuse.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { writeFileAtomic } from '../system/common/atomic-write.ts';
import type { SystemConfig } from '../system/config.ts';
import { hostNginxControl } from '../system/proxy/host.ts';
import { stampVhost } from '../system/proxy/vhost-stamp.ts';
import { SystemError } from '../system/types.ts';
import { usesTlsCopies } from '../system/proxy/tls-copy-paths.ts';
import { inBatches, relayVhostNames, stageForVhosts } from './tls-copies.ts';
import { isRootTlsSource, tlsPathDirectives, type TlsDirective } from './tls-directives.ts';
import { CA_FILE, CERT_FILE, CLIENT_CA_ENTRY, CRL_FILE, entriesOfVhost, KEY_FILE } from './tls-entries.ts';
import { tlsSourceOwners } from './tls-owner.ts';

/** A relay vhost's last line as vhost-stamp.ts writes it. */
const STAMP_LINE = /\n# relay-panel sha256 [0-9a-f]{64}\n$/;

/** The copy each directive of this vhost names: its certificate entry's pair, or the client CA's. */
function copyPath(tlsDir: string, vhost: string, directive: TlsDirective): string {
  const entries = entriesOfVhost(vhost);
  if (directive === 'ssl_client_certificate' || directive === 'ssl_crl') {
    // a vhost of a kind without client certificates (edited by hand): no copy is kept for it
    if (!entries.includes(CLIENT_CA_ENTRY)) throw new SystemError(`${vhost} has ${directive}, which a vhost of its kind never has: remove the line or the vhost, then run relay-panel install again`);
    return join(tlsDir, CLIENT_CA_ENTRY, directive === 'ssl_crl' ? CRL_FILE : CA_FILE);
  }
  const entry = entries.find((e) => e !== CLIENT_CA_ENTRY)!;
  return join(tlsDir, entry, directive === 'ssl_certificate' ? CERT_FILE : KEY_FILE);
}

function rewritePaths(tlsDir: string, vhost: string, text: string): string {
  let out = text;
  // from the end, so the offsets before each replacement hold
  for (const d of tlsPathDirectives(text).reverse()) {
    if (!isRootTlsSource(tlsDir, d.path)) out = `${out.slice(0, d.start)}"${copyPath(tlsDir, vhost, d.directive)}"${out.slice(d.end)}`;
  }
  return out;
}

/**
 * The vhost's text naming the copies, or null when it names nothing else. A vhost as relay-panel
 * wrote it is stamped again over its new text (what root wrote is no hand edit for doctor, and the
 * panel's refresh then rewrites only what its templates change); one edited by hand keeps its old
 * stamp, which still does not match: doctor goes on naming it.
 */
export function rewrittenVhost(tlsDir: string, vhost: string, text: string): string | null {
  if (tlsPathDirectives(text).every((d) => isRootTlsSource(tlsDir, d.path))) return null;
  const stamp = STAMP_LINE.exec(text);
  const body = stamp ? text.slice(0, stamp.index + 1) : null;
  if (body !== null && stampVhost(body) === text) return stampVhost(rewritePaths(tlsDir, vhost, body));
  return rewritePaths(tlsDir, vhost, text);
}

interface VhostText {
  name: string;
  path: string;
  text: string;
}

async function relayVhostTexts(config: SystemConfig): Promise<VhostText[]> {
  const names = (await relayVhostNames(config)).sort();
  // sites-available is root's: what is in it was written by root (the helper, the installer)
  const texts = await inBatches(names, async (name) => {
    const path = join(config.nginx.sitesAvailable, name);
    const text = await readFile(path, 'utf8').catch((e: NodeJS.ErrnoException) => {
      if (e.code === 'ENOENT') return null;
      throw e;
    });
    return text === null ? null : { name, path, text };
  });
  return texts.filter((v) => v !== null);
}

/** Each relay vhost that names a TLS file outside tlsDir, with the first such path; `except`: vhosts a request rewrites or removes. */
export async function foreignTlsPaths(config: SystemConfig, except: ReadonlySet<string> = new Set()): Promise<Array<{ vhost: string; path: string }>> {
  if (!usesTlsCopies(config)) return [];
  const found: Array<{ vhost: string; path: string }> = [];
  for (const { name, text } of await relayVhostTexts(config)) {
    if (except.has(name)) continue;
    const foreign = tlsPathDirectives(text).find((d) => !isRootTlsSource(config.nginx.tlsDir, d.path));
    if (foreign) found.push({ vhost: name, path: foreign.path });
  }
  return found;
}

/**
 * Throws `Refused: <vhost> loads <path>, not root's copy: relay-panel install rewrites it` while
 * any relay vhost (but `except`) names a TLS file outside tlsDir: nginx must not load it.
 */
export async function refuseForeignTlsPaths(config: SystemConfig, except?: ReadonlySet<string>): Promise<void> {
  const [first] = await foreignTlsPaths(config, except);
  if (first) throw new SystemError(`Refused: ${first.vhost} loads ${first.path}, not root's copy: relay-panel install rewrites it`, undefined, undefined, 'refused');
}

/**
 * Run by root (install, upgrade): every relay vhost in sites-available that names a certificate,
 * key, client CA or CRL outside tlsDir is rewritten to name root's copies of its entries, which are
 * staged first (a refused source throws `Refused: <path> refused: <reason>` and nothing is
 * written). The files are replaced atomically (0644; their links in sites-enabled stay as they
 * are), then `nginx -t` and, with `reload` (the default), a reload; on a failure every file is put
 * back. Answers the names rewritten; nothing is tested or reloaded when none is.
 */
export async function rewriteTlsPaths(config: SystemConfig, options: { reload?: boolean } = {}): Promise<string[]> {
  if (!usesTlsCopies(config)) return [];
  const { tlsDir } = config.nginx;
  const changes = (await relayVhostTexts(config)).flatMap((v) => {
    const next = rewrittenVhost(tlsDir, v.name, v.text);
    return next === null ? [] : [{ ...v, next }];
  });
  if (changes.length === 0) return [];
  await stageForVhosts(config, changes.map((c) => c.name), await tlsSourceOwners(config));
  const nginx = hostNginxControl(config);
  const putBack = async () => {
    for (const c of changes) await writeFileAtomic(c.path, c.text, 0o644);
  };
  try {
    for (const c of changes) await writeFileAtomic(c.path, c.next, 0o644);
    await nginx.test();
  } catch (e) {
    await putBack();
    throw e;
  }
  if (options.reload ?? true) {
    try {
      await nginx.reload();
    } catch (e) {
      await putBack();
      await nginx.reload().catch(() => undefined);
      throw e;
    }
  }
  return changes.map((c) => c.name);
}
