// doctor's `units` checks: a service systemd keeps restarting is a problem even while it is active
// at the instant doctor asks (a crash loop spends most of its time active). How often: systemd's
// own "Scheduled restart job" journal entries of the last minutes, no more than its NRestarts
// (restarts since it was last started by hand: a loop someone ended with a restart, like an
// upgrade's rollback, is over); where the journal cannot be read, NRestarts alone, and the
// message says which.
import { failureOutput, summarizeStderr } from '../system/common/exec.ts';
import { countScheduledRestarts, parseNRestarts, RESTART_SCHEDULED } from '../system/systemd/restarts.ts';
import type { Installation } from './installation.ts';
import { unitState } from './unit-state.ts';

/** More than `max` automatic restarts within `minutes` is a restart loop. */
export const RESTART_LOOP = { max: 3, minutes: 10 } as const;

export type Restarts =
  | { count: number; source: 'journal' }
  /** `journal`: why the journal could not be read */
  | { count: number; source: 'NRestarts'; journal: string }
  | { count: null; journal: string; nRestarts: string };

export interface UnitFinding {
  ok: boolean;
  message: string;
  fix: string;
}

const UNIT_TYPE = /\.(service|socket|target|timer|path|mount|automount|swap|slice|scope|device)$/;

/** The full name of a service unit (systemctl reads `chisel` as `chisel.service`); null for other types, which systemd never restarts. */
export function serviceName(unit: string): string | null {
  if (!UNIT_TYPE.test(unit)) return `${unit}.service`;
  return unit.endsWith('.service') ? unit : null;
}

/**
 * journalctl's matches for systemd's restarts of `service`: different fields must all match, and
 * _PID=1 (a field the journal sets, not the logging process) keeps out entries a service logs
 * about itself with the same MESSAGE_ID and UNIT.
 */
export function restartJournalArgs(service: string, minutes: number = RESTART_LOOP.minutes): string[] {
  return [`--since=-${minutes}min`, '--output=json', '--no-pager', '--quiet', `MESSAGE_ID=${RESTART_SCHEDULED}`, `UNIT=${service}`, '_PID=1'];
}

const why = (e: unknown) => summarizeStderr(failureOutput(e), 1);

/** How often systemd restarted `service` (`chisel.service`): the journal's count, else NRestarts, else why neither could be read. */
export async function recentRestarts(inst: Installation, service: string): Promise<Restarts> {
  const { journalctl, systemctl } = inst.system.binaries;
  let journal: string;
  try {
    const r = await inst.run(journalctl, restartJournalArgs(service));
    const count = countScheduledRestarts(r.stdout, service);
    const sinceByHand = await inst.run(systemctl, ['show', '-p', 'NRestarts', '--value', service]).then((n) => parseNRestarts(n.stdout), () => null);
    return { count: sinceByHand === null ? count : Math.min(count, sinceByHand), source: 'journal' };
  } catch (e) {
    journal = why(e);
  }
  try {
    const r = await inst.run(systemctl, ['show', '-p', 'NRestarts', '--value', service]);
    const count = parseNRestarts(r.stdout);
    return count === null ? { count: null, journal, nRestarts: `it printed '${r.stdout.trim()}'` } : { count, source: 'NRestarts', journal };
  } catch (e) {
    return { count: null, journal, nRestarts: why(e) };
  }
}

/** Automatic restarts after which an upgrade stops waiting for the new release's answer: it crashed at start twice. */
export const CRASH_LOOP_RESTARTS = 2;

/**
 * Why `unit` (just restarted by hand, so its NRestarts counts from 0) is not coming up, or null
 * while it may still: systemd restarted it CRASH_LOOP_RESTARTS times (Restart=always, 2 s apart),
 * or gave up on it (failed). Anything unreadable is no reason: the wait's own timeout decides then.
 */
export async function crashLoop(inst: Installation, unit: string): Promise<string | null> {
  const service = serviceName(unit);
  if (!service) return null;
  if ((await unitState(inst, service)) === 'failed') return `systemd reports ${service} failed`;
  const restarts = await inst.run(inst.system.binaries.systemctl, ['show', '-p', 'NRestarts', '--value', service]).then((r) => parseNRestarts(r.stdout), () => null);
  return restarts !== null && restarts >= CRASH_LOOP_RESTARTS ? `it exited at start and systemd restarted it ${restarts} times` : null;
}

/** The finding for one unit from its state and its restarts (null: not a service). */
export function unitFinding(unit: string, state: string, restarts: Restarts | null): UnitFinding {
  const base = `${unit} is ${state}`;
  const active = state === 'active';
  const restart = `systemctl restart ${unit}; journalctl -u ${unit} -n 50`;
  if (!restarts) return { ok: active, message: base, fix: restart };
  if (restarts.count === null) {
    return { ok: active, message: `${base} (how often systemd restarted it is unknown: journalctl: ${restarts.journal}; systemctl show -p NRestarts: ${restarts.nRestarts})`, fix: restart };
  }
  const times = `${restarts.count} time${restarts.count === 1 ? '' : 's'}`;
  const span = restarts.source === 'journal'
    ? `in the last ${RESTART_LOOP.minutes} minutes`
    : `since it was last started by hand (NRestarts; the journal could not be read: ${restarts.journal})`;
  if (restarts.count > RESTART_LOOP.max) {
    return { ok: false, message: `${base}${active ? ', but' : ';'} systemd restarted it ${times} ${span}`, fix: `journalctl -u ${unit} -n 50 shows why` };
  }
  const quiet = restarts.count === 0 && restarts.source === 'journal';
  return { ok: active, message: quiet ? base : `${base}; systemd restarted it ${times} ${span}`, fix: restart };
}

/** What doctor says of one unit: its state, and a restart loop even when it is active. */
export async function unitHealth(inst: Installation, unit: string): Promise<UnitFinding> {
  const service = serviceName(unit);
  const [state, restarts] = await Promise.all([unitState(inst, unit), service ? recentRestarts(inst, service) : null]);
  return unitFinding(unit, state, restarts);
}
