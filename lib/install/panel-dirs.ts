// The panel's own directories and who makes each. One whose parent is root's alone is made by root
// (install's `directories` step: nobody else can put a link in its place); one inside another of
// the panel's directories is made by the panel's user (panel-task `dirs`), because root would have
// to follow or trust an entry that user controls.
import { isAbsolute, relative } from 'node:path';
import type { Installation } from './installation.ts';
import type { PanelDir } from './panel-task/protocol.ts';

/** The panel's, in its group, or in the group of the service that reads it (chisel) or shares it (Authelia). */
export interface PanelDirSpec extends PanelDir {
  group?: 'tunnel-server' | 'auth-portal';
}

export function panelDirs(inst: Installation): PanelDirSpec[] {
  const s = inst.system;
  const l = inst.layout;
  const dirs: PanelDirSpec[] = [
    { path: l.configDir, mode: 0o750 },
    { path: l.dataDir, mode: 0o700 },
    { path: s.pki.dir, mode: 0o700 },
    { path: s.nginx.selfSignedDir, mode: 0o755 },
    { path: s.nginx.helpDir, mode: 0o755 },
    // setgid: what the panel writes there takes chisel's group (it reads its authfile and key)
    { path: s.chisel.dir, mode: 0o2750, group: 'tunnel-server' },
    // setgid and sticky: Authelia writes its storage there but cannot replace the panel's files
    { path: s.authelia.dir, mode: 0o3770, group: 'auth-portal' },
    { path: s.acme.configDir, mode: 0o750 },
    { path: s.acme.workDir, mode: 0o750 },
    { path: s.acme.logsDir, mode: 0o750 },
    { path: s.acme.webroot, mode: 0o755 },
    { path: s.sites.root, mode: 0o755 },
  ];
  // the same directory named twice (a layout that shares one) is made once
  return dirs.filter((d, i) => dirs.findIndex((o) => o.path === d.path) === i);
}

function inside(dir: string, parent: string): boolean {
  const rel = relative(parent, dir);
  return rel !== '' && !rel.startsWith('..') && !isAbsolute(rel);
}

/** Whether the directory sits inside another of the panel's directories. */
function isNested(dir: PanelDir, all: readonly PanelDir[]): boolean {
  return all.some((other) => other.path !== dir.path && inside(dir.path, other.path));
}

/** Made by root: their parents are not the panel's. */
export function topLevelPanelDirs(inst: Installation): PanelDirSpec[] {
  const all = panelDirs(inst);
  return all.filter((d) => !isNested(d, all));
}

/** Made by the panel's user, parents first. */
export function nestedPanelDirs(inst: Installation): PanelDir[] {
  const all = panelDirs(inst);
  return all.filter((d) => isNested(d, all)).map(({ path, mode }) => ({ path, mode })).sort((a, b) => a.path.split('/').length - b.path.split('/').length);
}

/** The panel's top-level directories holding these paths: what a unit of the panel's may write (systemd follows links in the rest). */
export function holdingTopLevelDirs(inst: Installation, paths: readonly string[]): string[] {
  const top = topLevelPanelDirs(inst).map((d) => d.path);
  return [...new Set(paths.map((p) => top.find((t) => t === p || inside(p, t)) ?? p))];
}
