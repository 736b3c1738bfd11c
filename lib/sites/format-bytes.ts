const UNITS = ['KB', 'MB', 'GB', 'TB'];

/** `512 B`, `1.5 KB`, `50.0 MB`: binary multiples with one decimal, as the spec's size warning reads. */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < UNITS.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value.toFixed(1)} ${UNITS[unit]}`;
}
