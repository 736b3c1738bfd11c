// Doctor's look at the vhost boundary: on a box whose panel is not root, only root may change what
// nginx's root master loads (the panel goes through the root helper).
import { lstat, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Installation } from './installation.ts';

/** What lets someone other than root change a vhost, or why the helper cannot run; empty when sound. */
export async function vhostBoundaryProblems(inst: Installation, helper: string): Promise<string[]> {
  const { system: s, layout: l } = inst;
  const problems: string[] = [];
  const rootOnly = async (path: string, what: string) => {
    const st = await lstat(path).catch(() => null);
    if (!st) problems.push(`${what} ${path} is missing`);
    else if (st.uid !== 0 || (st.mode & 0o022) !== 0) problems.push(`${what} ${path} is writable by someone other than root`);
  };
  for (const dir of [s.nginx.sitesAvailable, s.nginx.sitesEnabled]) await rootOnly(dir, 'vhost directory');
  for (const name of (await readdir(s.nginx.sitesAvailable).catch(() => [] as string[])).filter((n) => /^relay-.*\.conf$/.test(n))) {
    await rootOnly(join(s.nginx.sitesAvailable, name), 'vhost');
  }
  await rootOnly(helper, 'vhost helper');
  await rootOnly(l.helperConfig, 'vhost helper configuration');
  return problems;
}
