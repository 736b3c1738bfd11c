// `relay-panel install`: from a fresh Debian/Ubuntu box to the IP panel on :9292. Every step first
// looks at what is there, so a second run changes nothing and an interrupted run resumes.
import { InstallError } from './host-checks.ts';
import type { Installation } from './installation.ts';
import { writeInstallRecord } from './install-record.ts';
import { reportedError, type Reporter } from './report.ts';
import { directories, harden, packages, preflight, user } from './steps/host.ts';
import { certificates, config, health, renewals, start, units } from './steps/panel.ts';
import { ipVhost } from './steps/vhosts.ts';
import { acme } from './steps/acme.ts';
import { privileges } from './steps/root-helper.ts';
import { release } from './steps/release.ts';
import { snapshot } from './steps/snapshot.ts';
import type { InstallState, Outcome } from './steps/step.ts';

export async function install(inst: Installation, report: Reporter): Promise<void> {
  const state: InstallState = {};
  const steps: Array<[string, () => Promise<Outcome>]> = [
    ['preflight', () => preflight(inst, state)],
    ['packages', () => packages(inst)],
    ['user', () => user(inst, state)],
    ['directories', () => directories(inst, state.owner!)],
    ['release', () => release(inst)],
    ['snapshot', () => snapshot(inst)],
    ['config', () => config(inst, state)],
    ['acme', () => acme(inst, state.owner!)],
    ['certificates', () => certificates(inst, state)],
    // the IP vhost is written by the root helper, which this step installs
    ['privileges', () => privileges(inst)],
    ['ip-vhost', () => ipVhost(inst, state.owner!)],
    ['units', () => units(inst, state)],
    ['renewals', () => renewals(inst)],
    ['harden', () => harden(inst)],
    ['start', () => start(inst, state)],
    ['health', () => health(inst)],
  ];
  for (const [name, step] of steps) {
    let outcome: Outcome;
    try {
      outcome = await step();
    } catch (e) {
      const fix = e instanceof InstallError ? e.fix : 'fix the cause and run install again: finished steps are kept';
      report.step({ step: name, status: 'failed', message: (e as Error).message, ...(fix ? { fix } : {}) });
      throw reportedError(e as Error);
    }
    report.step({ step: name, ...outcome });
  }
  await writeInstallRecord(inst);
  const { layout: l, system } = inst;
  const url = `https://${state.ip!.includes(':') ? `[${state.ip}]` : state.ip}:${system.ports.ipPanel}`;
  report.text([
    '',
    'relay-panel is installed. Next:',
    state.p12Password
      ? `  1. Copy the admin certificate ${l.adminP12} to your computer (scp root@${state.ip}:${l.adminP12} .); its password, shown only now: ${state.p12Password}`
      : `  1. The admin certificate ${l.adminP12} was made by an earlier install; its password was shown then`,
    '  2. Import it into your browser (or the system keychain)',
    `  3. Open ${url} (accept the self-signed server certificate) and follow the onboarding`,
  ], { adminP12: l.adminP12, url, ...(state.p12Password ? { p12Password: state.p12Password } : {}) });
}

