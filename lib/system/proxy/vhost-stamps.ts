// What the panel last wrote (or found as it would write it) of each vhost: the spec, the release's
// template fingerprint, and the file's size, times and inode just after. A start compares the
// records and one stat per file with these instead of reading, rendering and hashing every vhost
// (a restart must not cost a read of every vhost at 1,000 tunnels): only a new release, a changed record, a file touched since (a hand edit) or a vhost
// without a stamp is read. The file lies next to the records, mode 0600, replaced atomically.
import { statSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { writeSecretFile } from '../common/atomic-write.ts';
import type { VhostSpec } from '../types.ts';

/** What a file's inode says of it; any write changes one of these (ctime even a faked mtime). */
export interface FileMark {
  size: number;
  mtimeMs: number;
  ctimeMs: number;
  ino: number;
}

interface Stamp extends FileMark {
  /** the spec the text was made from, as JSON */
  spec: string;
  /** the template fingerprint it was made under (lib/system/proxy/fingerprint.ts) */
  release: string;
}

export const VHOST_STAMPS_FILE = 'vhost-stamps.json';

/**
 * The file's mark, or null when it is not there. Synchronous: one stat of a local file takes
 * microseconds, and a thousand of them through the thread pool cost more in promises than in stats.
 */
export function fileMark(path: string): FileMark | null {
  const st = statSync(path, { throwIfNoEntry: false });
  return st ? { size: st.size, mtimeMs: st.mtimeMs, ctimeMs: st.ctimeMs, ino: st.ino } : null;
}

/** VhostStamps' questions, answered from the stamps as they were read. */
export interface StampsView {
  untouched(name: string, mark: FileMark | null): boolean;
  current(name: string, mark: FileMark | null, spec: VhostSpec): boolean;
}

const sameMark = (a: FileMark, b: FileMark) => a.size === b.size && a.mtimeMs === b.mtimeMs && a.ctimeMs === b.ctimeMs && a.ino === b.ino;

export class VhostStamps {
  #stamps: Promise<Map<string, Stamp>> | null = null;
  #dirty = false;

  #fingerprint: string | (() => string);

  /**
   * `fingerprint`: this release's (lib/system/proxy/fingerprint.ts), or how to compute it at the
   * first stamp compared or taken: rendering every sample template cost each panel built (a test's
   * kit, a restore) about a millisecond of CPU, most of whom never compare a stamp.
   */
  constructor(private readonly path: string, fingerprint: string | (() => string)) {
    this.#fingerprint = fingerprint;
  }

  get fingerprint(): string {
    if (typeof this.#fingerprint === 'function') this.#fingerprint = this.#fingerprint();
    return this.#fingerprint;
  }

  /** Whether the file is as the panel wrote it: not touched since its stamp was taken. */
  async untouched(name: string, mark: FileMark | null): Promise<boolean> {
    return (await this.view()).untouched(name, mark);
  }

  /**
   * `untouched` and `current` without a promise each, once the stamps are read: a start asks them
   * of every vhost, and at 1,000 vhosts two promises a vhost cost more than the answers.
   */
  async view(): Promise<StampsView> {
    const stamps = await this.load();
    return {
      untouched: (name, mark) => {
        const stamp = stamps.get(name);
        return stamp !== undefined && mark !== null && sameMark(stamp, mark);
      },
      current: (name, mark, spec) => {
        const stamp = stamps.get(name);
        return stamp !== undefined && mark !== null && sameMark(stamp, mark) && stamp.release === this.fingerprint && stamp.spec === JSON.stringify(spec);
      },
    };
  }

  /** The file at its mark holds what this release makes of the spec (written or checked so). */
  async take(name: string, spec: VhostSpec, mark: FileMark | null): Promise<void> {
    const stamps = await this.load();
    if (mark === null) return this.drop(name);
    stamps.set(name, { ...mark, spec: JSON.stringify(spec), release: this.fingerprint });
    this.#dirty = true;
  }

  async drop(name: string): Promise<void> {
    if ((await this.load()).delete(name)) this.#dirty = true;
  }

  /** Writes the stamps when they changed since the last save. */
  async save(): Promise<void> {
    if (!this.#dirty) return;
    this.#dirty = false;
    await writeSecretFile(this.path, JSON.stringify(Object.fromEntries(await this.load())));
  }

  private load(): Promise<Map<string, Stamp>> {
    return (this.#stamps ??= readStamps(this.path));
  }
}

async function readStamps(path: string): Promise<Map<string, Stamp>> {
  try {
    return new Map(Object.entries(JSON.parse(await readFile(path, 'utf8')) as Record<string, Stamp>));
  } catch {
    // none yet (a box before this release), or unreadable: every vhost is read once, as before
    return new Map();
  }
}
