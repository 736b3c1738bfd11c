// Doctor's look at the vhost boundary: on a box whose panel is not root, only root may change what
// nginx's root master loads (the panel goes through the root helper).
import { join } from 'node:path';
import { notRootOnly } from '../system/common/fs.ts';
import { routesDirOf } from '../system/config.ts';
import { relayVhostFiles } from './files.ts';
import type { Installation } from './installation.ts';
import { ROOT_HELPER_UNIT } from './privileges.ts';

/** What lets someone other than root change a vhost or the helper; empty when sound. */
export async function vhostBoundaryProblems(inst: Installation): Promise<string[]> {
  const { system: s, layout: l } = inst;
  const vhosts = await relayVhostFiles(s.nginx.sitesAvailable);
  const helper = [l.helperConfig, l.rootCall, l.unitFile(ROOT_HELPER_UNIT, 'socket'), l.unitFile(ROOT_HELPER_UNIT)];
  // the routes directory too: a link planted there is loaded by the shared tunnels' server
  const paths = [s.nginx.sitesAvailable, s.nginx.sitesEnabled, routesDirOf(s), ...vhosts.map((n) => join(s.nginx.sitesAvailable, n)), ...helper];
  const problems = await Promise.all(paths.map(notRootOnly));
  return problems.filter((p): p is string => p !== null);
}
