// /proc/stat and /proc/meminfo.

export interface CpuSample {
  idle: number;
  total: number;
}

/** The aggregate `cpu` line of /proc/stat; idle includes iowait. */
export function parseProcStat(text: string): CpuSample {
  const line = text.split('\n').find((l) => /^cpu\s/.test(l));
  if (!line) throw new Error('no aggregate cpu line in /proc/stat');
  const fields = line.trim().split(/\s+/).slice(1).map(Number);
  // user nice system idle iowait irq softirq steal (guest times are already inside user/nice)
  const [user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0, steal = 0] = fields;
  return { idle: idle + iowait, total: user + nice + system + idle + iowait + irq + softirq + steal };
}

/** Percent busy between two samples, 0..100, one decimal. */
export function cpuUsagePercent(a: CpuSample, b: CpuSample): number {
  const total = b.total - a.total;
  if (total <= 0) return 0;
  const busy = total - (b.idle - a.idle);
  return Math.round(Math.min(100, Math.max(0, (busy / total) * 100)) * 10) / 10;
}

/** MemTotal and MemAvailable in bytes; "used" is what is not available. */
export function parseMeminfo(text: string): { total: number; used: number; free: number } {
  const kb = (name: string): number | null => {
    const m = new RegExp(`^${name}:\\s+(\\d+)\\s*kB`, 'm').exec(text);
    return m ? Number(m[1]) * 1024 : null;
  };
  const total = kb('MemTotal') ?? 0;
  const available = kb('MemAvailable') ?? kb('MemFree') ?? 0;
  return { total, used: Math.max(0, total - available), free: available };
}
