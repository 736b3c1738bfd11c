// The certificate mode as the API and the onboarding see it: what it is (never a credential), and
// the switch between per-name and wildcard (switch.ts), one at a time.
import { rm } from 'node:fs/promises';
import type { ConfigStore } from '../../config.ts';
import { AppError, badRequest, errorMessage } from '../../errors.ts';
import type { Logger } from '../../log.ts';
import type { Store } from '../../state/store.ts';
import { runStepsOrFail } from '../../steps.ts';
import type { System } from '../../system/types.ts';
import { SharedGate } from '../../shared-gate.ts';
import { dnsCredentialsPath } from './credentials-file.ts';
import type { CertificateModeUpdate, CertificateModeView } from './mode.ts';
import { credentialKeys, DNS_PROVIDERS, PROVIDERS } from './providers.ts';
import { servedSpecs } from './served-specs.ts';
import { toPerNameSteps, toWildcardSteps, type SwitchDeps } from './switch.ts';

export const MODE_CHANGE_FAILED = 'Certificate mode change failed';

export interface CertificateModeDeps {
  config: ConfigStore;
  store: Store;
  system: System;
  log: Logger;
  /** held exclusive by a switch: no tunnel or site change runs across it (lib/shared-gate.ts) */
  modeGate?: SharedGate;
}

export class CertificateModeService {
  /** one switch at a time, and none beside a tunnel's or site's change */
  readonly #gate: SharedGate;

  constructor(private readonly deps: CertificateModeDeps) {
    this.#gate = deps.modeGate ?? new SharedGate();
  }

  view(): CertificateModeView {
    const mode = this.deps.config.value.certificateMode;
    const providers = DNS_PROVIDERS.map((name) => ({ name, package: PROVIDERS[name].package, credentialKeys: credentialKeys(name) }));
    if (mode.mode === 'per-name') return { mode: 'per-name', provider: null, lineage: null, propagationSeconds: null, credentialsSet: [], providers };
    return { mode: 'wildcard', provider: mode.provider, lineage: mode.lineage, propagationSeconds: mode.propagationSeconds, credentialsSet: mode.keysSet, providers };
  }

  /** Switches (or, in wildcard mode with the same provider, replaces the credentials); one switch at a time. */
  set(update: CertificateModeUpdate): Promise<CertificateModeView> {
    return this.#gate.exclusive(() => this.#set(update));
  }

  async #set(update: CertificateModeUpdate): Promise<CertificateModeView> {
    const { domain, email, certificateMode: current } = this.deps.config.value;
    if (!domain || !email) throw badRequest('Domain and email must be configured before choosing the certificate mode');
    const deps = this.#switchDeps();
    if (update.mode === 'per-name') {
      if (current.mode === 'per-name') return this.view();
      await runStepsOrFail(MODE_CHANGE_FAILED, toPerNameSteps(deps, email));
      await this.#dropWildcard(current.lineage, current.provider);
      return this.view();
    }
    if (current.mode === 'wildcard' && current.provider !== update.provider) {
      throw new AppError(409, `Switch back to per-name certificates before choosing another DNS provider (now ${current.provider})`);
    }
    await runStepsOrFail(MODE_CHANGE_FAILED, toWildcardSteps(deps, update, domain, email));
    return this.view();
  }

  #switchDeps(): SwitchDeps {
    const { config, store, system } = this.deps;
    return {
      system,
      dataDir: store.dataDir,
      records: () => ({ tunnels: store.tunnels.value, sites: store.sites.value }),
      config: () => config.value,
      save: async (certificateMode) => void (await config.update({ certificateMode })),
    };
  }

  /**
   * After the switch back is saved: the vhosts rewritten once more (a create that ran during the
   * switch wrote its vhost in the old mode), then the lineage and its credentials go. Each failure
   * is logged only: the switch is done, and a lineage left over names nothing.
   */
  async #dropWildcard(lineage: string, provider: (typeof DNS_PROVIDERS)[number]): Promise<void> {
    const { config, store, system, log } = this.deps;
    try {
      await system.proxy.refresh(servedSpecs({ tunnels: store.tunnels.value, sites: store.sites.value }, config.value));
      // a custom site at the bare domain is served by the lineage of that name: it stays
      if (!store.sites.value.some((site) => site.fqdn === lineage)) await system.certs.remove(lineage);
    } catch (error) {
      log.warn(`certificate mode: the wildcard certificate ${lineage} was left in place: ${errorMessage(error)}`);
      return;
    }
    await rm(dnsCredentialsPath(store.dataDir, provider), { force: true }).catch((error: unknown) => log.warn(`certificate mode: ${errorMessage(error)}`));
  }
}
