import { rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { assertAbsolutePath } from '../common/names.ts';
import { mkdirWithMode } from '../common/fs.ts';
import { SystemError, type SiteStorageAdapter } from '../types.ts';

const SITE_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

function assertSiteId(id: string): string {
  if (!SITE_ID.test(id)) throw new SystemError(`Invalid site id '${id}'`);
  return id;
}

/** Whether a path is the directory of a site under `root` (what a site vhost may serve). */
export function isSiteDir(path: string, root: string): boolean {
  return dirname(path) === root && SITE_ID.test(basename(path));
}

/**
 * Site directories under one root (`<root>/<site id>`), readable by nginx (0755): the files are
 * public web content, not secrets. Host and sandbox differ only in the root.
 */
export function createSiteStorage(root: string): SiteStorageAdapter {
  assertAbsolutePath(root);
  const dirOf = (id: string) => join(root, assertSiteId(id));
  return {
    dirOf,
    async create(id) {
      const dir = dirOf(id);
      await mkdirWithMode(root, 0o755, true);
      // not recursive: an existing directory of that id is a bug, not something to reuse
      await mkdirWithMode(dir, 0o755);
      return dir;
    },
    async remove(id) {
      await rm(dirOf(id), { recursive: true, force: true });
    },
  };
}
