// The statistics adapter as the domain services see it: stats.ts reads /proc on the host and in the sandbox alike.

export interface SystemStats {
  cpu: { usage: number; cores: number };
  memory: { total: number; used: number; free: number };
  disk: { total: number; used: number; free: number };
  uptime: number;
}

export interface StatsAdapter {
  /** Cached for 2 s. */
  snapshot(): Promise<SystemStats>;
}
