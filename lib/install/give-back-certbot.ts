// The give-back of everything an earlier release gave the panel's user from Debian's certbot, in
// the order the checks need: a renewal configuration stays only when every place it names is
// root's alone, so the work and logs directories and the webroot are given back before the
// configuration directory that names them. And the one line the installer prints about it.
import type { AcmeDirs } from './acme-move.ts';
import { giveBack, type GiveBackReport } from './give-back.ts';
import { runName } from './give-back-quarantine.ts';
import type { GiveBackKind } from './give-back-rules.ts';

export interface GiveBackCertbotOptions {
  /** the earlier release's directories (Debian's: /etc/letsencrypt, /var/lib/letsencrypt, /var/log/letsencrypt, /var/www/html); null: leave it */
  dirs: { [K in keyof AcmeDirs]: string | null };
  panel: { uid: number; gid: number };
  quarantine: string;
  python?: string | null;
  /** the run's directory in the quarantine (default: when it runs) */
  run?: string;
}

export async function giveBackCertbot(o: GiveBackCertbotOptions): Promise<GiveBackReport[]> {
  const order: [string | null, GiveBackKind][] = [[o.dirs.logsDir, 'plain'], [o.dirs.workDir, 'certbot-work'], [o.dirs.webroot, 'webroot'], [o.dirs.configDir, 'certbot-config']];
  const reports: GiveBackReport[] = [];
  const run = o.run ?? runName();
  for (const [dir, kind] of order) {
    if (dir) reports.push(await giveBack({ dir, kind, panel: o.panel, quarantine: o.quarantine, run, ...(o.python === undefined ? {} : { python: o.python }) }));
  }
  return reports;
}

const plural = (n: number, one: string) => `${n} ${one}${n === 1 ? '' : 's'}`;

/** One line for the installer's report: what became root's, what went to quarantine and why, what was removed. */
export function describeGiveBack(reports: readonly GiveBackReport[]): string {
  const present = reports.filter((r) => r.present);
  if (present.length === 0) return 'nothing to give back to root';
  const sum = (k: 'directories' | 'files' | 'links') => present.reduce((n, r) => n + r.givenBack[k], 0);
  const parts = [`${present.map((r) => r.dir).join(', ')} given back to root (${plural(sum('directories'), 'directory').replace('directorys', 'directories')}, ${plural(sum('files'), 'file')}, ${plural(sum('links'), 'link')})`];
  const entries = present.flatMap((r) => r.quarantined);
  const moved = entries.filter((e) => e.to !== null);
  const removed = entries.filter((e) => e.to === null);
  if (moved.length) parts.push(`${plural(moved.length, 'entry').replace('entrys', 'entries')} quarantined for review: ${moved.map((e) => `${e.path} -> ${e.to} (${e.reason})`).join('; ')}`);
  if (removed.length) parts.push(`${removed.length} removed: ${removed.map((e) => `${e.path} (${e.reason})`).join('; ')}`);
  const notes = present.flatMap((r) => r.notes);
  if (notes.length) parts.push(`left as they were: ${notes.map((n) => `${n.path} (${n.note})`).join('; ')}`);
  return parts.join('; ');
}
