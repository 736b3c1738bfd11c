// Output of systemctl: is-active words, `show` properties, timestamps, and the uptime string.
import type { ServiceStatus } from '../types.ts';

/** `systemctl is-active` prints one word; activating/reloading count as active, anything odd as unknown. */
export function parseActiveState(stdout: string): ServiceStatus['status'] {
  const word = stdout.trim().split('\n')[0]?.trim() ?? '';
  if (word === 'active' || word === 'reloading' || word === 'activating') return 'active';
  if (word === 'inactive' || word === 'deactivating') return 'inactive';
  if (word === 'failed') return 'failed';
  return 'unknown';
}

/** `systemctl show -p A -p B` prints `A=value` lines. */
export function parseShowProperties(stdout: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of stdout.split('\n')) {
    const eq = line.indexOf('=');
    if (eq > 0) out[line.slice(0, eq).trim()] = line.slice(eq + 1).trim();
  }
  return out;
}

/**
 * A systemd timestamp as `systemctl --timestamp=utc` prints it (`Sat 2026-11-21 12:00:00 UTC`);
 * empty, `n/a` and zero mean "never".
 */
export function parseSystemdTimestamp(value: string): Date | null {
  const m = /(\d{4}-\d{2}-\d{2}) (\d{2}:\d{2}:\d{2})(?:\.\d+)? (UTC|GMT|[+-]\d{2}:?\d{2})?/.exec(value.trim());
  if (!m) return null;
  const zone = !m[3] || m[3] === 'UTC' || m[3] === 'GMT' ? 'Z' : m[3].replace(/^([+-]\d{2})(\d{2})$/, '$1:$2');
  const d = new Date(`${m[1]}T${m[2]}${zone}`);
  return Number.isNaN(d.getTime()) ? null : d;
}

/** Human uptime: `3d 4h 12m`, `4h 0m`, `12m`; under a minute `0m`. */
export function formatUptime(ms: number): string {
  const minutesTotal = Math.max(0, Math.floor(ms / 60_000));
  const days = Math.floor(minutesTotal / 1440);
  const hours = Math.floor((minutesTotal % 1440) / 60);
  const minutes = minutesTotal % 60;
  if (days > 0) return `${days}d ${hours}h ${minutes}m`;
  if (hours > 0) return `${hours}h ${minutes}m`;
  return `${minutes}m`;
}

/** The uptime column of a service: empty when it is not running or the start time is unknown. */
export function uptimeFromActiveEnter(value: string, status: ServiceStatus['status'], now: number): string {
  if (status !== 'active') return '';
  const since = parseSystemdTimestamp(value);
  return since ? formatUptime(now - since.getTime()) : '';
}
