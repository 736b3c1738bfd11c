import { AppError, errorMessage } from '../errors.ts';
import type { Logger } from '../log.ts';
import type { Store } from '../state/store.ts';
import { SystemError, type System } from '../system/types.ts';
import type { Clock } from '../clock.ts';

export interface RevocationDeps {
  store: Pick<Store, 'revocations'>;
  system: Pick<System, 'pki' | 'proxy'>;
  clock: Clock;
  log: Logger;
}

/**
 * Revokes a serial everywhere: the revocation list the app checks (applies to the next request),
 * then the CA's index and CRL, then an nginx reload so the proxy refuses the certificate too.
 * The list comes first and stays even if a later step fails: a half-revoked certificate is
 * refused by the app, which is the safe side.
 */
export class Revoker {
  constructor(private readonly deps: RevocationDeps) {}

  revoke(serial: string, label: string | null): Promise<string> {
    return this.revokeAll([{ serial, label }]);
  }

  /** Several serials with one CRL and one reload; answers the revocation time. */
  async revokeAll(entries: readonly { serial: string; label: string | null }[]): Promise<string> {
    const revokedAt = new Date(this.deps.clock.now()).toISOString();
    await this.deps.store.revocations.update((list) => {
      for (const { serial, label } of entries) {
        if (!list.some((r) => r.serial.toUpperCase() === serial.toUpperCase())) list.push({ serial, label, revokedAt });
      }
    });
    for (const { serial } of entries) {
      try {
        await this.deps.system.pki.revoke(serial);
      } catch (error) {
        // a certificate this CA never issued (an admin certificate made elsewhere) has nothing to put on the CRL
        if (!(error instanceof SystemError && error.message.startsWith('No certificate with serial'))) throw this.#failed(serial, error);
      }
    }
    try {
      await this.deps.system.proxy.reload();
    } catch (error) {
      throw this.#failed(entries.map((e) => e.serial).join(', '), error);
    }
    return revokedAt;
  }

  #failed(serial: string, error: unknown): AppError {
    this.deps.log.error(`Revocation of ${serial}: the app refuses it, but the proxy step failed: ${errorMessage(error)}`);
    return new AppError(500, 'Certificate revocation failed', `Proxy update failed: ${errorMessage(error)}`);
  }
}
