import type { ConfigStore } from '../../config.ts';
import type { SharedGate } from '../../shared-gate.ts';
import type { System } from '../../system/types.ts';
import type { TaskId } from '../events.ts';

/** What a provisioning task works with. One context per run. */
export interface TaskContext {
  domain: string;
  email: string;
  ip: string;
  system: System;
  config: ConfigStore;
  /** a line for the task's log on the stream */
  log(line: string): void;
  /** the admin password made by this run: memory only, handed to the final event, then dropped */
  adminPassword: string | null;
  serviceCheck: { attempts: number; delayMs: number };
  /** bcrypt at the spec's cost; tests that run many provisionings pass a cheaper one */
  hashPassword(password: string): Promise<string>;
  /** held shared while the stack is written: a certificate mode switch is then before or after it, never across */
  modeGate?: SharedGate;
}

export interface ProvisioningTask {
  id: TaskId;
  title: string;
  /** Resolves with the closing line of the task's log; a throw fails the run with its message. */
  run(ctx: TaskContext): Promise<string>;
}
