import { join, relative } from 'node:path';
import type { RecordCollection } from '../state/record-collection.ts';
import type { SiteRecord } from '../state/schemas.ts';
import { inside } from './sections.ts';

/**
 * After a restore: the site files were unpacked under this box's sites root, but the records name
 * the backed-up box's absolute `rootPath`. Each one under the old root moves to the same place
 * under the new one (a path elsewhere was not in the backup and is left as it is).
 */
export function rebaseSiteRoots(sites: RecordCollection<SiteRecord>, from: string, to: string): Promise<void> {
  return sites.edit((draft) => {
    if (from === to) return;
    for (const site of [...draft.values()]) {
      if (inside(site.rootPath, from)) draft.put({ ...site, rootPath: join(to, relative(from, site.rootPath)) });
    }
  });
}
