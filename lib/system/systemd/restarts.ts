// How often systemd restarted a service, as its two sources say it: the journal's "Scheduled restart
// job" entries (one per automatic restart, logged by PID 1 with the unit in UNIT=), and the
// service's NRestarts property (automatic restarts since it was last started or stopped by hand).

/** MESSAGE_ID of systemd's "Scheduled restart job, restart counter is at N." (SD_MESSAGE_UNIT_RESTART_SCHEDULED). */
export const RESTART_SCHEDULED = '5eb03494b6584870a536b337290809b3';

/**
 * The entries in `journalctl -o json` output (one JSON object a line) that are systemd's own
 * restart of `service` (`chisel.service`); other lines (a `-- No entries --` banner, another
 * unit's or another process's entry) count nothing. PID 1 is a trusted field: a service cannot
 * log as it, though it can set MESSAGE_ID and UNIT in entries of its own.
 */
export function countScheduledRestarts(jsonLines: string, service: string): number {
  let count = 0;
  for (const line of jsonLines.split('\n')) {
    if (!line.startsWith('{')) continue;
    let entry: Record<string, unknown>;
    try {
      entry = JSON.parse(line) as Record<string, unknown>;
    } catch {
      continue;
    }
    if (entry.MESSAGE_ID === RESTART_SCHEDULED && entry.UNIT === service && entry._PID === '1') count++;
  }
  return count;
}

/** `systemctl show -p NRestarts --value <service>`: a count, or null for anything else (a unit that is not a service prints an empty line). */
export function parseNRestarts(stdout: string): number | null {
  const value = stdout.trim();
  return /^\d+$/.test(value) ? Number(value) : null;
}
