// The read side of sites-available/-enabled, shared by the adapters that write vhosts themselves
// and the one whose writes go through the root helper (the panel reads these directories, never
// writes them, on an installed box).
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { assertFileName } from '../common/names.ts';
import type { VhostSpec, VhostState } from '../types.ts';
import { entryExists, readOrNull } from '../common/fs.ts';
import { isVhostNameOfKind } from './templates.ts';
import { vhostIntact } from './vhost-stamp.ts';
import { fileMark, type VhostStamps } from './vhost-stamps.ts';

export interface VhostDirPaths {
  availableDir: string;
  enabledDir: string;
}

export class VhostDirs {
  /** `stamps`: what the panel last wrote of each vhost; a file untouched since is not read */
  constructor(protected readonly dirs: VhostDirPaths, protected readonly stamps: VhostStamps | null = null) {}

  async state(name: string): Promise<VhostState> {
    assertFileName(name);
    const text = await this.textUnlessUntouched(name);
    return { name, written: await entryExists(this.available(name)), enabled: await this.isLinked(name), ...editedMark(text) };
  }

  async list(kind: VhostSpec['kind']): Promise<VhostState[]> {
    const [available, enabled] = await Promise.all([namesIn(this.dirs.availableDir), namesIn(this.dirs.enabledDir)]);
    const written = new Set(available);
    const linked = new Set(enabled);
    const names = [...new Set([...available, ...enabled])].filter((name) => isVhostNameOfKind(name, kind)).sort();
    return Promise.all(names.map(async (name) => {
      const text = written.has(name) ? await this.textUnlessUntouched(name) : null;
      return { name, written: written.has(name), enabled: linked.has(name), ...editedMark(text) };
    }));
  }

  /** The file's text, or null when it is gone or untouched since the panel wrote it (so not edited). */
  private async textUnlessUntouched(name: string): Promise<string | null> {
    if (this.stamps && (await this.stamps.untouched(name, fileMark(this.available(name))))) return null;
    return readOrNull(this.available(name));
  }

  protected available(name: string): string {
    return join(this.dirs.availableDir, name);
  }

  protected enabled(name: string): string {
    return join(this.dirs.enabledDir, name);
  }

  protected isLinked(name: string): Promise<boolean> {
    return entryExists(this.enabled(name));
  }

  /** The names linked in sites-enabled, in one listing: a change of 1,000 vhosts asked 1,000 lstats. */
  protected async linkedNames(): Promise<Set<string>> {
    return new Set(await namesIn(this.dirs.enabledDir));
  }
}

function editedMark(text: string | null): { edited?: true } {
  return text === null || vhostIntact(text) ? {} : { edited: true };
}

/** File names in a directory; none when it does not exist yet. */
async function namesIn(dir: string): Promise<string[]> {
  try {
    return await readdir(dir);
  } catch (e) {
    ignoreMissing(e);
    return [];
  }
}

export function ignoreMissing(e: unknown): void {
  if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
}
