// The onboarding flow: domain -> DNS check -> provisioning, with the status kept in the config.
import type { StreamSocket } from './stream-socket.ts';
import { hashPassword } from '../auth/passwords.ts';
import { isoNow, type Clock } from '../clock.ts';
import type { AuditSink } from '../audit/entry.ts';
import type { ConfigStore, OnboardingStatus } from '../config.ts';
import { AppError } from '../errors.ts';
import type { Logger } from '../log.ts';
import type { System } from '../system/types.ts';
import { checkDns, type DnsReport } from './dns-check.ts';
import { localDomainProblem, type DomainInput } from './domain-rules.ts';
import type { PublicLinks } from '../public-links.ts';
import { validationFailed } from '../errors.ts';
import { ProgressBoard } from './progress-board.ts';
import { ProvisioningRunner } from './runner.ts';
import { assertStatusFor } from './states.ts';
import { attachProgressStream } from './stream.ts';
import type { SharedGate } from '../shared-gate.ts';
import { PROVISIONING_TASKS, type ProvisioningTask } from './tasks/index.ts';

export interface OnboardingDeps {
  config: ConfigStore;
  system: System;
  clock: Clock;
  log: Logger;
  /** Told when a run starts and how it ends. */
  audit?: AuditSink;
  /** links, the sandbox's suggested domain and whether `*.localhost` names are accepted */
  publicLinks?: PublicLinks;
  /** the certificate mode switch's gate (lib/shared-gate.ts), held by the vhosts task */
  modeGate?: SharedGate;
}

export interface OnboardingOptions {
  tasks?: readonly ProvisioningTask[];
  /** task 5: how often to look at a unit that is not active yet, and how long to wait in between */
  serviceCheck?: { attempts: number; delayMs: number };
  /** the admin password's hash; bcrypt cost 12 unless a test asks for a cheaper one */
  hashPassword?: (password: string) => Promise<string>;
}

export interface OnboardingState {
  status: OnboardingStatus;
  domain: string | null;
  email: string | null;
}

export class OnboardingService {
  readonly board: ProgressBoard;
  private readonly runner: ProvisioningRunner;

  constructor(
    private readonly deps: OnboardingDeps,
    options: OnboardingOptions = {},
  ) {
    const tasks = options.tasks ?? PROVISIONING_TASKS;
    this.board = new ProgressBoard(
      tasks.map((t) => ({ id: t.id, title: t.title })),
      () => isoNow(deps.clock),
      () => deps.config.value.onboarding.status,
    );
    this.runner = new ProvisioningRunner({
      config: deps.config,
      system: deps.system,
      log: deps.log,
      audit: deps.audit,
      board: this.board,
      tasks,
      serviceCheck: options.serviceCheck ?? { attempts: 20, delayMs: 500 },
      hashPassword: options.hashPassword ?? hashPassword,
      publicLinks: deps.publicLinks,
      ...(deps.modeGate ? { modeGate: deps.modeGate } : {}),
    });
  }

  state(): OnboardingState {
    const { onboarding, domain, email } = this.deps.config.value;
    return { status: onboarding.status, domain, email };
  }

  /** FRESH -> DOMAIN_SET; in DOMAIN_SET the values are replaced. */
  async setDomain(input: DomainInput): Promise<OnboardingState> {
    // a rule of the body, checked where the body's other rules are: before the status
    const local = localDomainProblem(input.domain, this.deps.publicLinks?.sandbox ?? false);
    if (local) throw validationFailed([{ path: 'domain', message: local }]);
    assertStatusFor('domain', this.deps.config.value.onboarding.status);
    await this.deps.config.update({ domain: input.domain, email: input.email, onboarding: { status: 'DOMAIN_SET' } });
    return this.state();
  }

  /**
   * DOMAIN_SET -> DNS_READY when the base domain resolves to the host ip; a re-check in DNS_READY
   * that fails leaves the status as it is. `ok` is the base result; the wildcard is advisory.
   */
  async verifyDns(): Promise<DnsReport & { ok: boolean; status: OnboardingStatus }> {
    const { onboarding, domain, ip } = this.deps.config.value;
    assertStatusFor('verify-dns', onboarding.status);
    if (!domain) throw new AppError(400, 'Domain not configured');
    const report = await checkDns(this.deps.system.dns, domain, ip);
    // the answer is for this domain only: a domain changed meanwhile needs its own check
    const now = this.deps.config.value;
    if (report.base.ok && now.domain === domain && now.onboarding.status === 'DOMAIN_SET') {
      await this.deps.config.update({ onboarding: { status: 'DNS_READY' } });
    }
    return { ok: report.base.ok, status: this.deps.config.value.onboarding.status, ...report };
  }

  /** DNS_READY -> PROVISIONING and a background run; in PROVISIONING a retry unless one is running. */
  async provision(): Promise<{ started: boolean; status: OnboardingStatus }> {
    assertStatusFor('provision', this.deps.config.value.onboarding.status);
    const started = await this.runner.start();
    return { started, status: this.deps.config.value.onboarding.status };
  }

  attachStream(socket: StreamSocket): void {
    attachProgressStream(this.board, socket);
  }

  close(): Promise<void> {
    return this.runner.close();
  }
}
