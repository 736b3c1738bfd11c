// What root asks of the panel's user, and what it answers (as-panel-user.ts runs it; tasks.ts does
// it). Root never writes, reads or follows anything in the panel's directories itself: a request
// names what to make, a child process running as the panel's user makes it, and root reads only
// this answer, which it checks like any input from a less privileged user.
import { z } from 'zod';
import type { ConfigInput } from '../../config.ts';
import type { SystemConfig } from '../../system/config.ts';
import type { VhostSpec } from '../../system/types.ts';
import type { AcmeMoveOptions } from '../acme-move.ts';

export { PANEL_TASK_COMMAND } from '../commands.ts';

export type SyncedSystem = Pick<SystemConfig, 'rootHelper' | 'systemd' | 'acme'>;

export interface PanelDir {
  path: string;
  mode: number;
}

export type PanelTask =
  /** directories inside the panel's own (their parents are the panel's, so root may not make them) */
  | { task: 'dirs'; dirs: PanelDir[] }
  /** the configuration, made once; `ip`: the address install was given, compared with the kept one */
  | { task: 'config'; file: string; create: ConfigInput; ip?: string }
  /**
   * the parts of the configuration's system section that must agree with the root helper's and the
   * units': the helper's socket (a release before it named sudo launchers), who runs what, and where
   * the panel's certificates live
   */
  | { task: 'sync-system'; file: string; system: Partial<SyncedSystem>; binaries: { nginx: string; systemctl: string }; legacyWrapperDir: string }
  /** an earlier release's lineages moved out of Debian's certbot directories (acme-move.ts) */
  | { task: 'acme-move'; move: AcmeMoveOptions }
  /** a failed upgrade puts the configuration back as root read it before */
  | { task: 'write-config'; file: string; text: string }
  /** the client CA (and its CRL); with a password, a new admin certificate as PKCS#12 */
  | { task: 'pki'; system: SystemConfig; adminP12Password?: string }
  /** what the given vhosts point at: the CA, the help page, the self-signed certificates */
  | { task: 'vhost-material'; system: SystemConfig; specs: VhostSpec[] }
  /** the tunnel server's host key, made when missing */
  | { task: 'host-key'; dir: string };

const DirsAnswer = z.strictObject({ made: z.array(z.string().max(4096)).max(64) });
const ConfigAnswer = z.strictObject({ created: z.boolean(), ip: z.string().max(64) });
const ChangedAnswer = z.strictObject({ changed: z.boolean() });
const PkiAnswer = z.strictObject({ caCreated: z.boolean(), p12: z.string().max(64 * 1024).regex(/^[A-Za-z0-9+/=]*$/).optional() });
const EmptyAnswer = z.strictObject({});
const names = z.array(z.string().max(4096)).max(10_000);
const AcmeMoveAnswer = z.strictObject({
  moved: names,
  left: z.array(z.strictObject({ name: z.string().max(255), reason: z.string().max(4096), hooks: names, intoPanelDirs: names })).max(10_000),
  accounts: names,
  deployHook: z.enum(['moved', 'removed', 'absent']),
  keysRemoved: names,
  otherHooks: names,
});
const HostKeyAnswer = z.strictObject({ path: z.string().max(4096), fingerprint: z.string().max(128), created: z.boolean() });

/** Each answer's shape: root parses what the child printed with it, nothing more. */
export const ANSWERS = {
  dirs: DirsAnswer,
  config: ConfigAnswer,
  'sync-system': ChangedAnswer,
  'acme-move': AcmeMoveAnswer,
  'write-config': EmptyAnswer,
  pki: PkiAnswer,
  'vhost-material': EmptyAnswer,
  'host-key': HostKeyAnswer,
} as const;

export type PanelAnswer<T extends PanelTask['task']> = z.infer<(typeof ANSWERS)[T]>;
