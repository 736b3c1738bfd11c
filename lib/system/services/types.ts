// The services (systemd + journal) adapter as the domain services see it; host.ts drives the real program, sandbox.ts plays it.

export const SERVICE_NAMES = ['proxy', 'tunnel-server', 'auth-portal', 'panel'] as const;
export type ServiceName = (typeof SERVICE_NAMES)[number];
export const SERVICE_ACTIONS = ['start', 'stop', 'restart', 'reload'] as const;
export type ServiceAction = (typeof SERVICE_ACTIONS)[number];

export interface ServiceStatus {
  name: ServiceName;
  status: 'active' | 'inactive' | 'failed' | 'unknown';
  uptime: string;
}

export interface LogLine {
  timestamp: string;
  message: string;
}

/** An async stream of log lines; `close()` ends the follow process. */
export interface LogFollow extends AsyncIterable<LogLine> {
  close(): void;
}

export interface ServicesAdapter {
  status(name: ServiceName): Promise<ServiceStatus>;
  control(name: ServiceName, action: ServiceAction): Promise<void>;
  follow(name: ServiceName, backlog: number): LogFollow;
}
