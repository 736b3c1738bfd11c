// The stream servers' files, shared by host and sandbox: written, tested with `nginx -t`, reloaded;
// a failed test or reload puts every touched file back as it was (and reloads that, after a
// failed reload), so a refused change leaves nginx serving what it served before.
import { mkdir, readdir, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { serialQueue } from '../../keyed-lock.ts';
import { writeFileAtomic } from '../common/atomic-write.ts';
import { readOrNull } from '../common/fs.ts';
import { assertFileName } from '../common/names.ts';
import { isStreamFileName, streamFileName } from './render.ts';
import type { StreamChange, StreamProxyAdapter, StreamSpec } from './types.ts';

export interface StreamStoreOptions {
  dir: string;
  render(spec: StreamSpec): string;
  /** throws a SystemError with nginx's words when the configuration is invalid */
  test(): Promise<void>;
  /** throws when the reload did not take effect (a port another process holds shows only here) */
  reload(): Promise<void>;
  /** before a change's test and reload, which read every nginx file: the start's look at the vhosts (ProxyAdapter.lookNow) */
  beforeChange?(): Promise<unknown>;
}

export class StreamStore implements StreamProxyAdapter {
  private readonly serial = serialQueue();

  constructor(private readonly opts: StreamStoreOptions) {}

  apply(changes: StreamChange[]): Promise<void> {
    return this.serial(() => this.applyNow(changes));
  }

  list(): Promise<string[]> {
    return listStreamFiles(this.opts.dir);
  }

  private async applyNow(changes: StreamChange[]): Promise<void> {
    if (changes.length === 0) return;
    await mkdir(this.opts.dir, { recursive: true });
    const next = new Map<string, string | null>();
    for (const change of changes) {
      if (change.op === 'put') next.set(streamFileName(change.spec), this.opts.render(change.spec));
      else next.set(assertFileName(change.name), null);
    }
    const before = new Map<string, string | null>();
    for (const name of next.keys()) before.set(name, await readOrNull(this.path(name)));
    const changed = [...next].filter(([name, content]) => before.get(name) !== content);
    if (changed.length === 0) return;
    await this.opts.beforeChange?.();
    await this.write(changed);
    try {
      await this.opts.test();
    } catch (e) {
      await this.write([...before]);
      throw e;
    }
    try {
      await this.opts.reload();
    } catch (e) {
      await this.write([...before]);
      // the old servers again, so a refused listen does not leave the others down; its own failure is not the news
      await this.opts.reload().catch(() => undefined);
      throw e;
    }
  }

  private async write(files: Iterable<[string, string | null]>): Promise<void> {
    for (const [name, content] of files) {
      if (content === null) await unlink(this.path(name)).catch((e: NodeJS.ErrnoException) => { if (e.code !== 'ENOENT') throw e; });
      else await writeFileAtomic(this.path(name), content);
    }
  }

  private path(name: string): string {
    return join(this.opts.dir, name);
  }
}

/** The stream server files of a directory, sorted; none when it does not exist yet. */
export async function listStreamFiles(dir: string): Promise<string[]> {
  try {
    return (await readdir(dir)).filter(isStreamFileName).sort();
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw e;
  }
}
