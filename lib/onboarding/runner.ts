// Runs the six tasks in the background, one run at a time, reporting to the progress board.
// A failed task stops the run (status stays PROVISIONING); the next start() retries from the top,
// which is safe because every task is idempotent.
import type { AuditSink } from '../audit/entry.ts';
import type { ConfigStore } from '../config.ts';
import { errorMessage } from '../errors.ts';
import { provisionedStack } from '../host-state/desired.ts';
import { unlinkUncertifiedStack } from '../host-state/stack.ts';
import type { Logger } from '../log.ts';
import type { System } from '../system/types.ts';
import { ADMIN_USERNAME } from './admin-account.ts';
import { accessUrls } from '../stack-hosts.ts';
import type { PublicLinks } from '../public-links.ts';
import type { ProgressBoard } from './progress-board.ts';
import type { ProvisioningTask, TaskContext } from './tasks/index.ts';

export interface RunnerDeps {
  config: ConfigStore;
  system: System;
  log: Logger;
  audit?: AuditSink;
  board: ProgressBoard;
  tasks: readonly ProvisioningTask[];
  serviceCheck: TaskContext['serviceCheck'];
  hashPassword: TaskContext['hashPassword'];
  modeGate?: TaskContext['modeGate'];
  /** where the final event's links point (the sandbox's own server, or nginx) */
  publicLinks?: PublicLinks;
}

export class ProvisioningRunner {
  private current: Promise<void> | null = null;
  private closing = false;

  constructor(private readonly deps: RunnerDeps) {}

  /**
   * Starts a run unless one is active. Resolves once the status is PROVISIONING (so the 202 that
   * follows is true); the tasks go on in the background.
   */
  async start(): Promise<boolean> {
    if (this.current || this.closing) return false;
    const marked = this.markProvisioning();
    this.current = marked
      .then(() => this.runTasks())
      .catch((error: unknown) => this.deps.log.error(`provisioning: ${errorMessage(error)}`))
      .finally(() => {
        this.current = null;
      });
    await marked;
    return true;
  }

  /** Lets the current task finish, runs no further one, and waits. */
  async close(): Promise<void> {
    this.closing = true;
    await this.current;
  }

  private async markProvisioning(): Promise<void> {
    if (this.deps.config.value.onboarding.status !== 'PROVISIONING') await this.deps.config.update({ onboarding: { status: 'PROVISIONING' } });
  }

  private async runTasks(): Promise<void> {
    const { config, system, log, board, tasks } = this.deps;
    const { domain, email, ip } = config.value;
    if (!domain || !email) throw new Error('domain and email must be set before provisioning');
    board.begin();
    log.info(`provisioning ${domain}: started`);
    this.deps.audit?.record({ event: 'provisioning.started', target: domain });
    let active = tasks[0]!;
    const ctx: TaskContext = {
      domain,
      email,
      ip,
      system,
      config,
      log: (line) => board.log(active.id, line),
      adminPassword: null,
      serviceCheck: this.deps.serviceCheck,
      hashPassword: this.deps.hashPassword,
      ...(this.deps.modeGate ? { modeGate: this.deps.modeGate } : {}),
    };
    try {
      for (const [index, task] of tasks.entries()) {
        active = task;
        if (this.closing) throw new Error('Provisioning interrupted: the service is shutting down');
        board.start(task.id, `${task.title}...`);
        const closing = await task.run(ctx);
        if (index < tasks.length - 1) board.finish(task.id, closing);
        else {
          const credentials = { username: ADMIN_USERNAME, password: ctx.adminPassword ?? '' };
          board.complete(task.id, closing, { credentials, urls: this.deps.publicLinks?.accessUrls(domain, ip) ?? accessUrls(domain, ip, config.value.system.ports) });
        }
      }
      log.info(`provisioning ${domain}: completed`);
      this.deps.audit?.record({ event: 'provisioning.finished', target: domain, outcome: 'completed' });
    } catch (error) {
      const reason = errorMessage(error);
      await this.guardVhosts(ctx);
      board.fail(active.id, reason);
      // the task, not the reason: a failure message may quote a program's output
      this.deps.audit?.record({ event: 'provisioning.finished', target: domain, outcome: `failed at ${active.id}` });
      log.warn(`provisioning ${domain}: ${active.id} failed: ${reason}`);
    } finally {
      // the plaintext lives only as long as the run that made it
      ctx.adminPassword = null;
    }
  }

  private async guardVhosts(ctx: TaskContext): Promise<void> {
    try {
      const disabled = await unlinkUncertifiedStack(ctx.system.proxy, await provisionedStack(ctx.system.certs, ctx.domain));
      if (disabled.length > 0) ctx.log(`Disabled ${disabled.join(', ')}: no valid certificate`);
    } catch (error) {
      ctx.log(`Could not check the vhosts after the failure: ${errorMessage(error)}`);
    }
  }
}
