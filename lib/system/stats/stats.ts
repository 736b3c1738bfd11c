// System statistics from /proc, os and statfs; the same on host and sandbox. Cached for 2 s.
import { readFile, statfs } from 'node:fs/promises';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { cpuUsagePercent, parseMeminfo, parseProcStat, type CpuSample } from './proc.ts';
import type { StatsAdapter, SystemStats } from '../types.ts';

export interface StatsOptions {
  now: () => number;
  procDir?: string;
  diskPath?: string;
  /** gap between the two /proc/stat samples when there is no recent one */
  sampleGapMs?: number;
  cacheMs?: number;
}

export function createStats(opts: StatsOptions): StatsAdapter {
  const procDir = opts.procDir ?? '/proc';
  const diskPath = opts.diskPath ?? '/';
  const gap = opts.sampleGapMs ?? 100;
  const cacheMs = opts.cacheMs ?? 2000;
  let cached: { at: number; value: Promise<SystemStats> } | null = null;
  let lastSample: { at: number; sample: CpuSample } | null = null;
  // os.cpus() reads /proc/cpuinfo synchronously: once, on the first measurement, not per system built
  let cores = 0;

  const sampleCpu = async (): Promise<CpuSample> => parseProcStat(await readFile(join(procDir, 'stat'), 'utf8'));

  const measure = async (): Promise<SystemStats> => {
    let first = lastSample && opts.now() - lastSample.at >= gap ? lastSample.sample : null;
    if (!first) {
      first = await sampleCpu();
      await new Promise((r) => setTimeout(r, gap));
    }
    const second = await sampleCpu();
    lastSample = { at: opts.now(), sample: second };
    const [meminfo, uptimeText, fs] = await Promise.all([
      readFile(join(procDir, 'meminfo'), 'utf8'),
      readFile(join(procDir, 'uptime'), 'utf8'),
      statfs(diskPath),
    ]);
    const diskTotal = fs.blocks * fs.bsize;
    const diskFree = fs.bavail * fs.bsize;
    return {
      cpu: { usage: cpuUsagePercent(first, second), cores: (cores ||= cpus().length || 1) },
      memory: parseMeminfo(meminfo),
      disk: { total: diskTotal, used: Math.max(0, diskTotal - fs.bfree * fs.bsize), free: diskFree },
      uptime: Math.floor(Number(uptimeText.split(/\s+/)[0]) || 0),
    };
  };

  return {
    snapshot(): Promise<SystemStats> {
      const now = opts.now();
      if (!cached || now - cached.at >= cacheMs) {
        const value = measure();
        cached = { at: now, value };
        value.catch(() => {
          if (cached?.value === value) cached = null;
        });
      }
      return cached.value;
    },
  };
}
