// chisel's --authfile: {"user:pass": ["^R:127\\.0\\.0\\.1:<port>$", ...]}. chisel matches every remote
// a client asks for against its user's patterns, and reloads the file when it changes.
import { randomBytes } from 'node:crypto';
import { open } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { join } from 'node:path';
import { needsSync } from '../../state/unsynced-dirs.ts';
import { writeSecretFile } from '../common/atomic-write.ts';
import { readOrNull } from '../common/fs.ts';
import { assertPort } from '../common/names.ts';
import type { TunnelCredential } from '../types.ts';

export const TUNNEL_USER = 'relay';
/**
 * users.json is read by chisel's own user through the directory's group (setgid: new files take
 * it); the credential and the saved copy are the panel's alone (writeSecretFile, 0600).
 */
export const AUTHFILE_MODE = 0o640;
/** Far above the time chisel takes to read the file after a write event, far below a human's wait. */
const REWRITE_GAP_MS = 20;

/** The only remote a tunnel may open: a reverse listener on the relay's loopback at its own port. */
export function reversePortPattern(port: number): string {
  return `^R:127\\.0\\.0\\.1:${assertPort(port)}$`;
}

export function renderAuthfile(credential: TunnelCredential, ports: number[]): string {
  const unique = [...new Set(ports.map(assertPort))].sort((a, b) => a - b);
  return JSON.stringify({ [`${credential.user}:${credential.password}`]: unique.map(reversePortPattern) }, null, 2) + '\n';
}

/** Ports granted by an authfile we wrote; patterns of any other shape are ignored. */
export function parseAuthfilePorts(text: string): number[] {
  const parsed = JSON.parse(text) as Record<string, unknown>;
  const ports = new Set<number>();
  for (const patterns of Object.values(parsed)) {
    if (!Array.isArray(patterns)) continue;
    for (const p of patterns) {
      const m = typeof p === 'string' ? /^\^R:127\\\.0\\\.0\\\.1:(\d+)\$$/.exec(p) : null;
      if (m) ports.add(Number(m[1]));
    }
  }
  return [...ports].sort((a, b) => a - b);
}

/**
 * The credential and the authfile in one directory (host: /etc/chisel, sandbox: dataDir/chisel).
 *
 * chisel up to 1.10 watches the authfile itself and reloads only on a write event, so a
 * rename-into-place would neither reload nor keep the watch. The file is therefore rewritten in
 * place (writeInPlace), after the same content was saved atomically to `users.json.saved`,
 * which is what `allowedPorts` reads and what repairs a file torn by a crash.
 */
export class AuthfileStore {
  readonly authfile: string;
  private readonly savedFile: string;
  private readonly credentialFile: string;
  private cached: Promise<TunnelCredential> | null = null;
  private lastWrite = 0;
  private readonly rewriteGapMs: number;

  /** `rewriteGapMs`: 0 where no chisel reads the file (the sandbox runs none). */
  constructor(dir: string, { rewriteGapMs = REWRITE_GAP_MS }: { rewriteGapMs?: number } = {}) {
    this.rewriteGapMs = rewriteGapMs;
    this.authfile = join(dir, 'users.json');
    this.savedFile = join(dir, 'users.json.saved');
    this.credentialFile = join(dir, 'credential.json');
  }

  /** Made once, then never changed: kept in memory after the first read. */
  credential(): Promise<TunnelCredential> {
    if (!this.cached) {
      const loading = this.loadCredential();
      this.cached = loading;
      loading.catch(() => {
        if (this.cached === loading) this.cached = null; // the next call tries again
      });
    }
    return this.cached.then((c) => ({ ...c }));
  }

  private async loadCredential(): Promise<TunnelCredential> {
    const text = await readOrNull(this.credentialFile);
    if (text !== null) {
      const c = JSON.parse(text) as TunnelCredential;
      if (typeof c.user === 'string' && typeof c.password === 'string' && c.password.length >= 16) return c;
    }
    const created = { user: TUNNEL_USER, password: randomBytes(24).toString('base64url') };
    await writeSecretFile(this.credentialFile, JSON.stringify(created) + '\n');
    return created;
  }

  async allowedPorts(): Promise<number[]> {
    const text = (await readOrNull(this.savedFile)) ?? (await readOrNull(this.authfile));
    return text === null ? [] : parseAuthfilePorts(text);
  }

  /**
   * Writes only when a file differs: an unchanged sync (every start) costs no fsync and no chisel
   * reload. Answers the ports granted before (as `allowedPorts` read them) when it wrote, null when
   * the files already granted exactly `ports`: so a caller that wants what was revoked reads and
   * parses the grants only when they change (at 1,000 tunnels, a start's sync read them twice).
   */
  async setAllowedPorts(ports: number[]): Promise<number[] | null> {
    const content = renderAuthfile(await this.credential(), ports);
    const [saved, live] = await Promise.all([readOrNull(this.savedFile), readOrNull(this.authfile)]);
    if (saved === content && live !== null && live.trimEnd() === content.trimEnd()) return null;
    const before = saved ?? live;
    const granted = before === null ? [] : parseAuthfilePorts(before);
    await writeSecretFile(this.savedFile, content);
    await this.rewrite(content);
    return granted;
  }

  /**
   * chisel reads the file right after each write event; a second rewrite while it reads would give
   * it a page copied half old, half new. Rewrites are therefore spaced by rewriteGapMs (writes
   * are already one at a time: AllowedPortsSync).
   */
  private async rewrite(content: string): Promise<void> {
    const wait = this.lastWrite + this.rewriteGapMs - Date.now();
    if (wait > 0) await sleep(wait);
    await writeInPlace(this.authfile, content);
    this.lastWrite = Date.now();
  }

  /** Creates the authfile (no grants) or repairs it from the saved copy; never revokes live tunnels. */
  async ensureAuthfile(): Promise<void> {
    const saved = await readOrNull(this.savedFile);
    if (saved === null) {
      await this.setAllowedPorts(await this.allowedPorts());
      return;
    }
    if ((await readOrNull(this.authfile))?.trimEnd() !== saved.trimEnd()) await this.rewrite(saved);
  }
}

/**
 * chisel reads the file on every write event, so every state it can see must be the intended
 * document: no truncate (an empty or half-written file is what chisel 1.9 logged as `Invalid JSON`
 * on every change), one write at offset 0 of the new document padded with spaces (JSON whitespace)
 * to at least the old length. The file so keeps the size of its largest document; a few bytes per
 * tunnel ever granted at once.
 */
async function writeInPlace(path: string, content: string): Promise<void> {
  const fh = await open(path, 'r+').catch((e: NodeJS.ErrnoException) => {
    if (e.code !== 'ENOENT') throw e;
    return open(path, 'wx', AUTHFILE_MODE);
  });
  try {
    const st = await fh.stat();
    // before the content, so the mode never changes under a document chisel already read; a file
    // of an earlier release (0600) gets the new mode here, the umask's narrowing of a new one too
    if ((st.mode & 0o7777) !== AUTHFILE_MODE) await fh.chmod(AUTHFILE_MODE);
    const body = Buffer.from(content);
    const padded = body.length >= st.size ? body : Buffer.concat([body, Buffer.alloc(st.size - body.length, 0x20)]);
    await fh.write(padded, 0, padded.length, 0);
    if (needsSync(path)) await fh.sync();
  } finally {
    await fh.close();
  }
}
