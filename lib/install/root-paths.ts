// What root uses on the box, and who may change it: the rule of the privilege boundary as doctor
// checks it (docs/operations.md, "Security model"). Every path here is read, run or loaded by a root
// code path; each must be root's alone, or, where root reads something the panel's user made, be
// what root's checked read accepts (a regular file of that user, or certbot's own link).
import { lstat } from 'node:fs/promises';
import { join } from 'node:path';
import { listEntries } from '../root-helper/tls-dir.ts';
import { prepareEntry } from '../root-helper/tls-copies.ts';
import { notRootOnly } from '../system/common/fs.ts';

import type { Installation } from './installation.ts';
import { legacyCertbotDropIn, renewalUnits } from './renewals.ts';
import { panelOwner } from './users.ts';

export interface RootPath {
  path: string;
  /** the root code path that uses it */
  usedBy: string;
  /** a path that may be absent (a program not installed yet) */
  optional?: boolean;
}

/** Paths root reads, runs or loads, each to be root's alone (the vhost directories and the helper's files: vhost-privileges.ts). */
export function rootOnlyPaths(inst: Installation): RootPath[] {
  const { layout: l, system: s } = inst;
  const units = [s.units.panel, s.units['tunnel-server'], s.units['auth-portal']].map((u) => l.unitFile(u));
  return [
    { path: l.appDir, usedBy: 'install, upgrade, the root helper (its code)' },
    { path: l.releasesDir, usedBy: 'the root helper and certbot\'s deploy hook (the code they run)' },
    { path: l.installRecord, usedBy: 'upgrade, uninstall --purge', optional: true },
    { path: s.nginx.tlsDir, usedBy: 'nginx\'s master (certificates, keys, client CA, CRL)' },
    // a missing unit is the units' and renewals' checks to name; here only who may change one
    ...units.map((path) => ({ path, usedBy: 'systemd', optional: true })),
    { path: l.unitFile(s.units.panel, 'socket'), usedBy: 'systemd', optional: true },
    ...renewalUnits(inst).map((u) => ({ path: u.path, usedBy: 'systemd', optional: true })),
    { path: s.binaries.chisel, usedBy: 'systemd (chisel\'s unit)', optional: true },
    { path: s.binaries.authelia, usedBy: 'systemd (Authelia\'s unit)', optional: true },
    { path: l.fail2banJail, usedBy: 'fail2ban', optional: true },
    { path: join(l.prefix, 'etc/letsencrypt'), usedBy: 'Debian\'s certbot.timer (root)', optional: true },
    { path: l.quarantine, usedBy: 'the operator\'s review of what root did not take back', optional: true },
  ];
}

/** Each problem: what is wrong with a path root uses, and the fix. */
export async function rootPathProblems(inst: Installation): Promise<Array<{ problem: string; fix: string }>> {
  const problems: Array<{ problem: string; fix: string }> = [];
  for (const p of rootOnlyPaths(inst)) {
    const exists = await lstat(p.path).then(() => true, () => false);
    if (!exists && p.optional) continue;
    const why = await notRootOnly(p.path);
    if (why) problems.push({ problem: `${why} (used by ${p.usedBy})`, fix: fixFor(inst, p.path) });
  }
  const dropIn = legacyCertbotDropIn(inst.system);
  if (await lstat(dropIn).then(() => true, () => false)) problems.push({ problem: `${dropIn} makes Debian's certbot run as ${inst.options.user}`, fix: 'relay-panel install removes it' });
  problems.push(...(await panelMadeProblems(inst)));
  return problems;
}

function fixFor(inst: Installation, path: string): string {
  if (path === join(inst.layout.prefix, 'etc/letsencrypt')) return `relay-panel install gives it back to root (an earlier release gave it to ${inst.options.user}); look at ${inst.layout.quarantine} afterwards`;
  if (path === inst.layout.quarantine) return `chown -R root:root ${path} && chmod 0700 ${path}`;
  return `relay-panel install puts owners and modes back (it refuses a link: remove ${path} first)`;
}

/**
 * What root reads of the panel's (the helper's copies for nginx): each source as the helper reads
 * it, so a link, a FIFO or a file of another owner planted there is named before a reload keeps the
 * previous copy without a word to the operator.
 */
async function panelMadeProblems(inst: Installation): Promise<Array<{ problem: string; fix: string }>> {
  if (inst.options.user === 'root') return [];
  const owner = await panelOwner(inst).catch(() => null);
  if (!owner) return [];
  const problems: Array<{ problem: string; fix: string }> = [];
  for (const entry of await listEntries(inst.system.nginx.tlsDir).catch(() => [] as string[])) {
    try {
      await prepareEntry(inst.system, entry, [owner.uid]);
    } catch (e) {
      problems.push({ problem: `${(e as Error).message}: nginx keeps serving its last checked copy in ${join(inst.system.nginx.tlsDir, entry)}`, fix: `remove it; ${inst.options.user} makes it again (certbot renew, or relay-panel install for the panel's own certificates)` });
    }
  }
  return problems;
}
