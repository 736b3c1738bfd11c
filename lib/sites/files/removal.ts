import { lstat, rm } from 'node:fs/promises';
import { SitePathError, sitePath } from './safe-path.ts';

/** A file, or a folder with everything in it; never the site root itself. */
export async function removeEntry(root: string, path: string): Promise<void> {
  const { absolute, segments } = await sitePath(root, path);
  if (segments.length === 0) throw new SitePathError('The site root cannot be deleted');
  if (!(await lstat(absolute).catch(() => undefined))) throw new SitePathError(`File '${path}' not found`);
  await rm(absolute, { recursive: true, force: true });
}
