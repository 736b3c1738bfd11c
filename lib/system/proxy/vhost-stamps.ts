// What the panel last wrote (or found as it would write it) of each vhost: the spec, the release's
// template fingerprint, and the file's size, times and inode just after. A start compares the
// records with these instead of reading, rendering and hashing every vhost (a restart must not
// cost a read of every vhost at 1,000 tunnels), and one stat per file once it listens
// (lib/host-state/reconcile.ts): only a new release, a changed record, a file touched since (a
// hand edit) or a vhost without a stamp is read. The file lies next to the records, mode 0600, replaced atomically but
// not synced to disk: a cache, so a crash that loses it costs one start that reads every vhost.
import { statSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { codeIdentity } from '../../code-identity.ts';
import { writeFileAtomic } from '../common/atomic-write.ts';
import type { VhostSpec } from '../types.ts';
import type { Fingerprinter } from './fingerprint.ts';

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

/** The template fingerprint as the code `code` rendered it from `inputs` (fingerprint.ts). */
interface KeptFingerprint {
  code: string;
  inputs: string;
  fingerprint: string;
}

/** The file: the fingerprint kept, and a stamp per vhost name. */
interface StampsFile {
  templates?: KeptFingerprint;
  vhosts: Record<string, Stamp>;
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
  /** the mark the file had when the panel stamped it; undefined when it has no stamp */
  stampedMark(name: string): FileMark | undefined;
}

const sameMark = (a: FileMark, b: FileMark) => a.size === b.size && a.mtimeMs === b.mtimeMs && a.ctimeMs === b.ctimeMs && a.ino === b.ino;

export class VhostStamps {
  #file: Promise<{ stamps: Map<string, Stamp>; templates: KeptFingerprint | null }> | null = null;
  #dirty = false;

  #fingerprint: string | Fingerprinter;
  /** the fingerprint the file held, once read */
  #keptTemplates: KeptFingerprint | null = null;
  /** the one the next save writes */
  #templates: KeptFingerprint | null = null;

  /**
   * `fingerprint`: this release's (lib/system/proxy/fingerprint.ts), or how to make it at the
   * first stamp compared or taken: rendering every sample template cost each panel built (a test's
   * kit, a restore) about a millisecond of CPU, most of whom never compare a stamp, and a cold
   * start several. The file keeps it with the bundle's identity (`code`) and the samples' inputs,
   * so a start of the same code on the same layout takes it from there; none is kept without a
   * bundle's identity (the TypeScript sources).
   */
  constructor(
    private readonly path: string,
    fingerprint: string | Fingerprinter,
    private readonly code: string | null = codeIdentity,
  ) {
    this.#fingerprint = fingerprint;
  }

  /** Asked once the file is read (view, take): before, one kept in it is not known yet. */
  get fingerprint(): string {
    if (typeof this.#fingerprint === 'string') return this.#fingerprint;
    const fingerprinter = this.#fingerprint;
    const kept = this.#keptTemplates;
    const inputs = this.code === null ? null : fingerprinter.inputs();
    if (kept && this.code !== null && kept.code === this.code && kept.inputs === inputs) return (this.#fingerprint = kept.fingerprint);
    const fingerprint = fingerprinter.render();
    this.#fingerprint = fingerprint;
    if (this.code !== null && inputs !== null) {
      this.#templates = { code: this.code, inputs, fingerprint };
      this.#dirty = true;
    }
    return fingerprint;
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
      stampedMark: (name) => stamps.get(name),
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
    const file: StampsFile = { ...(this.#templates ? { templates: this.#templates } : {}), vhosts: Object.fromEntries(await this.load()) };
    // every vhost change saves it: at 1,000 vhosts a 234 KB file, whose fsync a change waited for;
    // its directory may not be there yet (a panel whose data directory nothing else wrote to)
    await writeFileAtomic(this.path, JSON.stringify(file), 0o600, { sync: false });
  }

  private async load(): Promise<Map<string, Stamp>> {
    const file = await (this.#file ??= readStamps(this.path).then((read) => {
      this.#keptTemplates = read.templates;
      // one made before the file was read stays
      this.#templates ??= read.templates;
      return read;
    }));
    return file.stamps;
  }
}

async function readStamps(path: string): Promise<{ stamps: Map<string, Stamp>; templates: KeptFingerprint | null }> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(await readFile(path, 'utf8'));
  } catch {
    // none yet (a box before this release), or unreadable: every vhost is read once, as before
    return { stamps: new Map(), templates: null };
  }
  const file = parsed as Partial<StampsFile> | null;
  // an earlier release's file is the stamps alone, by name: read as stamps, the fingerprint made again
  if (!file || typeof file !== 'object' || !file.vhosts || typeof file.vhosts !== 'object') return { stamps: new Map(Object.entries((parsed ?? {}) as Record<string, Stamp>)), templates: null };
  return { stamps: new Map(Object.entries(file.vhosts)), templates: keptFingerprint(file.templates) };
}

function keptFingerprint(value: unknown): KeptFingerprint | null {
  const kept = value as Partial<KeptFingerprint> | null | undefined;
  return kept && typeof kept.code === 'string' && typeof kept.inputs === 'string' && typeof kept.fingerprint === 'string' ? { code: kept.code, inputs: kept.inputs, fingerprint: kept.fingerprint } : null;
}
