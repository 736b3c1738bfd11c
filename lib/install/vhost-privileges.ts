// Doctor's look at the vhost boundary: on a box whose panel is not root, only root may change what
// nginx's root master loads (the panel goes through the root helper).
import { join } from 'node:path';
import { notRootOnly } from '../system/common/fs.ts';
import { relayVhostFiles } from './files.ts';
import type { Installation } from './installation.ts';

/** What lets someone other than root change a vhost or the helper; empty when sound. */
export async function vhostBoundaryProblems(inst: Installation, helper: string): Promise<string[]> {
  const { system: s, layout: l } = inst;
  const vhosts = await relayVhostFiles(s.nginx.sitesAvailable);
  const paths = [s.nginx.sitesAvailable, s.nginx.sitesEnabled, ...vhosts.map((n) => join(s.nginx.sitesAvailable, n)), helper, l.helperConfig];
  const problems = await Promise.all(paths.map(notRootOnly));
  return problems.filter((p): p is string => p !== null);
}
