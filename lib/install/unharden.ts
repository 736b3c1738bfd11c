// Uninstall's `harden` step: fail2ban and ufw as install found them. The jail goes; fail2ban goes
// back to the state install recorded before its first jail (stopped and disabled when install
// installed it, or found it so). A box from before that record: fail2ban restarts without the
// jail, and is stopped when it cannot run without it (Debian 12's own sshd jail reads
// /var/log/auth.log, which Debian 12 does not write), rather than left `failed`.
import { rm } from 'node:fs/promises';
import { pathExists } from '../system/common/fs.ts';
import type { Created } from './install-record.ts';
import type { Installation } from './installation.ts';
import { fail2banAnswers } from './steps/host.ts';
import type { Outcome } from './steps/step.ts';

async function fail2banBack(inst: Installation, created: Created | undefined, retryMs: number): Promise<string> {
  const systemctl = (...args: string[]) => inst.run(inst.system.binaries.systemctl, args, [1, 5]).catch(() => null);
  if (created?.packages.includes('fail2ban')) {
    await systemctl('disable', '--now', 'fail2ban');
    return 'fail2ban, which install installed, stopped and disabled (--purge removes the package)';
  }
  if (created?.fail2ban) {
    const { enabled, active } = created.fail2ban;
    if (!enabled) await systemctl('disable', 'fail2ban');
    if (!active) {
      await systemctl('stop', 'fail2ban');
      return `fail2ban stopped${enabled ? '' : ' and disabled'}, as install found it`;
    }
    await systemctl('try-restart', 'fail2ban');
    return (await fail2banAnswers(inst, retryMs)) ? 'fail2ban runs with its own jails, as install found it' : 'fail2ban restarted without the jail, but does not answer: it did before install';
  }
  await systemctl('try-restart', 'fail2ban');
  if (await fail2banAnswers(inst, retryMs)) return 'fail2ban runs with its own jails';
  await systemctl('disable', '--now', 'fail2ban');
  await systemctl('reset-failed', 'fail2ban');
  return 'fail2ban stopped and disabled: it has no jail that runs without the panel\'s (Debian 12\'s sshd jail reads /var/log/auth.log, which Debian 12 does not write)';
}

export async function unharden(inst: Installation, created: Created | undefined, retryMs = 250): Promise<Outcome> {
  const { layout: l, system: s } = inst;
  // the jail is written by install's harden step alone: without it, harden never ran here
  if (!(await pathExists(l.fail2banJail))) return { status: 'done', message: 'install did not harden this box (no fail2ban jail of the panel)' };
  await rm(l.fail2banJail, { force: true });
  const done = [`removed ${l.fail2banJail}`, await fail2banBack(inst, created, retryMs)];
  if (await pathExists(inst.tools.ufw)) {
    // ssh, http and https stay open: other services may use them, and closing ssh could lock the operator out
    await inst.run(inst.tools.ufw, ['delete', 'allow', `${s.ports.ipPanel}/tcp`]).catch(() => null);
    done.push(`ufw no longer allows ${s.ports.ipPanel}`);
  }
  return { status: 'changed', message: done.join('; ') };
}
