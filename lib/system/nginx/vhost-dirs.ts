// The read side of sites-available/-enabled, shared by the adapters that write vhosts themselves
// and the one whose writes go through the root helper (the panel reads these directories, never
// writes them, on an installed box).
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { assertFileName } from '../names.ts';
import type { VhostSpec, VhostState } from '../types.ts';
import { entryExists, readOrNull } from '../common/fs.ts';
import { isVhostNameOfKind } from './templates.ts';
import { vhostIntact } from './vhost-stamp.ts';

export interface VhostDirPaths {
  availableDir: string;
  enabledDir: string;
}

export class VhostDirs {
  constructor(protected readonly dirs: VhostDirPaths) {}

  async state(name: string): Promise<VhostState> {
    assertFileName(name);
    const text = await readOrNull(this.available(name));
    return { name, written: await entryExists(this.available(name)), enabled: await this.isLinked(name), ...editedMark(text) };
  }

  async list(kind: VhostSpec['kind']): Promise<VhostState[]> {
    const [available, enabled] = await Promise.all([namesIn(this.dirs.availableDir), namesIn(this.dirs.enabledDir)]);
    const written = new Set(available);
    const linked = new Set(enabled);
    const names = [...new Set([...available, ...enabled])].filter((name) => isVhostNameOfKind(name, kind)).sort();
    return Promise.all(names.map(async (name) => {
      const text = written.has(name) ? await readOrNull(this.available(name)) : null;
      return { name, written: written.has(name), enabled: linked.has(name), ...editedMark(text) };
    }));
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
