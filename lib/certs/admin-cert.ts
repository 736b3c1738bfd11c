import type { Clock } from '../clock.ts';
import type { Config } from '../config.ts';
import { AppError, errorMessage } from '../errors.ts';
import { normalizeSerial } from '../auth/identity.ts';
import type { Logger } from '../log.ts';
import { serialQueue } from '../keyed-lock.ts';
import type { JsonCollection } from '../state/collection.ts';
import type { AdminCertState } from '../state/documents.ts';
import { InvalidCsrError, type SignedClientCert, type System } from '../system/types.ts';
import type { BundleFiles } from './bundle-files.ts';
import type { Revoker } from './revocation.ts';
import { newP12Password } from './secrets.ts';

const hardwareBound = () => new AppError(410, 'The admin certificate is hardware-bound: PKCS#12 routes are disabled');
const GRACE_CHECK_MS = 60_000;

export interface AdminCertDeps {
  /** The store's `admin-cert.json` document. */
  state: JsonCollection<AdminCertState>;
  config: { readonly value: Config };
  system: Pick<System, 'pki'>;
  clock: Clock;
  log: Logger;
  bundles: BundleFiles;
  revoker: Revoker;
}

/**
 * The admin's client certificate: rotation with a grace period, the one-time P12 download, and the
 * one-way upgrade to a hardware-bound key. State lives in the store's `admin-cert.json` document (0600).
 */
export class AdminCert {
  #state: Promise<JsonCollection<AdminCertState>> | undefined;
  /** Normalized serial of a pending rotation's new certificate: checked on every admin request. */
  #awaiting: string | null = null;
  #bundleClaimed = false;
  /** Rotations, upgrades and completions change the same state and certificates: one at a time. */
  readonly #exclusive = serialQueue();
  /** Background completions (first use, grace period), awaited on close. */
  readonly #background = new Set<Promise<void>>();

  constructor(private readonly deps: AdminCertDeps) {}

  #collection(): Promise<JsonCollection<AdminCertState>> {
    this.#state ??= Promise.resolve(this.deps.state).then((collection) => {
      const r = collection.value.rotation;
      this.#awaiting = r?.state === 'pending' ? normalizeSerial(r.newSerial) : null;
      return collection;
    });
    return this.#state;
  }

  /** Loads the state and checks the grace period every minute; returns the stop function. */
  start(): () => Promise<void> {
    const check = () => this.#exclusive(() => this.#checkGrace());
    this.#inBackground('Admin certificate state', check);
    const stop = this.deps.clock.every(GRACE_CHECK_MS, () => this.#inBackground('Admin certificate grace period', check));
    return async () => {
      stop();
      await Promise.all(this.#background);
    };
  }

  #inBackground(what: string, task: () => Promise<void>): void {
    const running = task().catch((error) => this.deps.log.error(`${what}: ${errorMessage(error)}`));
    this.#background.add(running);
    void running.finally(() => this.#background.delete(running));
  }

  async describe(): Promise<AdminCertState> {
    return (await this.#collection()).value;
  }

  async authMode(): Promise<{ adminAuthMode: AdminCertState['authMode'] }> {
    return { adminAuthMode: (await this.#collection()).value.authMode };
  }

  /** Called with the serial of every admin request: the first use of a rotated certificate ends the old one. */
  observe(normalizedSerial: string | null): void {
    if (this.#awaiting === null || normalizedSerial !== this.#awaiting) return;
    this.#awaiting = null;
    this.#inBackground('Completing the admin certificate rotation', () => this.#exclusive(() => this.#complete('first-use')));
  }

  rotate(requesterSerial: string | null): Promise<{ serial: string; expiresAt: string; graceEndsAt: string; p12Password: string }> {
    return this.#exclusive(() => this.#rotate(requesterSerial));
  }

  async #rotate(requesterSerial: string | null): Promise<{ serial: string; expiresAt: string; graceEndsAt: string; p12Password: string }> {
    const state = await this.#collection();
    if (state.value.authMode === 'hardware-bound') throw hardwareBound();
    const cert = await this.deps.system.pki.issueClientCert('admin');
    const p12Password = newP12Password();
    try {
      await this.deps.bundles.write(this.deps.bundles.adminPath, await this.deps.system.pki.toPkcs12(cert, p12Password));
    } catch (error) {
      // nothing refers to the new certificate: make sure it can never be used
      await this.deps.system.pki.revoke(cert.serial).catch(() => undefined);
      throw error;
    }
    const now = this.deps.clock.now();
    const graceEndsAt = new Date(now + this.deps.config.value.certs.adminRotationGraceHours * 3600_000).toISOString();
    const { expiresAt } = cert;
    const earlier = state.value.rotation?.state === 'pending' ? state.value.rotation : null;
    await state.update((s) => {
      s.rotation = {
        // a second rotation before the first completed replaces the same old certificate
        previousSerial: earlier ? earlier.previousSerial : (requesterSerial ?? s.serial),
        newSerial: cert.serial,
        startedAt: new Date(now).toISOString(),
        graceEndsAt,
        state: 'pending',
        completedAt: null,
        completedBy: null,
      };
      s.serial = cert.serial;
      s.expiresAt = expiresAt;
      s.bundlePending = true;
    });
    this.#awaiting = normalizeSerial(cert.serial);
    this.#bundleClaimed = false;
    // the superseded new certificate was never delivered, or its bundle was replaced: nobody may use it
    if (earlier) await this.deps.revoker.revoke(earlier.newSerial, null);
    return { serial: cert.serial, expiresAt, graceEndsAt, p12Password };
  }

  /** The rotated P12, once; 410 afterwards. */
  async download(): Promise<Buffer<ArrayBuffer>> {
    const state = await this.#collection();
    if (state.value.authMode === 'hardware-bound') throw hardwareBound();
    if (state.value.rotation === null) throw new AppError(404, 'No admin certificate bundle: rotate first (POST /api/certs/mtls/rotate)');
    if (!state.value.bundlePending || this.#bundleClaimed) throw new AppError(410, 'The admin certificate bundle was already downloaded');
    // claimed before the first await: of concurrent downloads exactly one reads the bundle
    this.#bundleClaimed = true;
    let bundle: Buffer<ArrayBuffer> | null;
    try {
      bundle = await this.deps.bundles.read(this.deps.bundles.adminPath);
      await this.deps.bundles.remove(this.deps.bundles.adminPath);
      await state.update((s) => void (s.bundlePending = false));
    } catch (error) {
      // nobody got the bundle: the next try may still have it
      this.#bundleClaimed = false;
      throw error;
    }
    if (!bundle) throw new AppError(410, 'The admin certificate bundle was already downloaded');
    return bundle;
  }

  /** Signs the admin's CSR (key in a hardware keystore) as CN=admin and revokes every P12 admin certificate. */
  upgradeToHardwareBound(csr: string, requesterSerial: string | null): Promise<{ cert: string; caCert: string; serial: string; expiresAt: string }> {
    return this.#exclusive(() => this.#upgrade(csr, requesterSerial));
  }

  async #upgrade(csr: string, requesterSerial: string | null): Promise<{ cert: string; caCert: string; serial: string; expiresAt: string }> {
    const state = await this.#collection();
    if (state.value.authMode === 'hardware-bound') throw new AppError(409, 'The admin certificate is already hardware-bound');
    let signed: SignedClientCert;
    try {
      signed = await this.deps.system.pki.signCsr(csr, 'admin');
    } catch (error) {
      if (error instanceof InvalidCsrError) throw new AppError(400, 'Invalid certificate signing request');
      throw error;
    }
    const { rotation, serial } = state.value;
    const p12Serials = [...new Set([requesterSerial, serial, rotation?.previousSerial, rotation?.newSerial].filter((s): s is string => !!s))];
    const { expiresAt } = signed;
    await state.update((s) => {
      s.authMode = 'hardware-bound';
      s.serial = signed.serial;
      s.expiresAt = expiresAt;
      s.rotation = null;
      s.bundlePending = false;
    });
    this.#awaiting = null;
    await this.deps.bundles.remove(this.deps.bundles.adminPath);
    if (p12Serials.length > 0) await this.deps.revoker.revokeAll(p12Serials.map((s) => ({ serial: s, label: null })));
    return { cert: signed.certPem, caCert: await this.deps.system.pki.caCertificate(), serial: signed.serial, expiresAt };
  }

  async #checkGrace(): Promise<void> {
    const state = await this.#collection();
    const r = state.value.rotation;
    if (r?.state !== 'pending' || this.deps.clock.now() < Date.parse(r.graceEndsAt)) return;
    if (state.value.bundlePending) {
      // never delivered: ending the old certificate now would lock the admin out, so the rotation lapses instead
      this.#awaiting = null;
      await this.deps.revoker.revoke(r.newSerial, null);
      await this.deps.bundles.remove(this.deps.bundles.adminPath);
      await state.update((s) => {
        if (s.rotation) Object.assign(s.rotation, { state: 'cancelled', completedAt: new Date(this.deps.clock.now()).toISOString() });
        s.serial = r.previousSerial;
        s.bundlePending = false;
      });
      this.deps.log.warn('Admin certificate rotation lapsed: the new bundle was never downloaded, the current certificate stays valid');
      return;
    }
    this.#awaiting = null;
    await this.#complete('grace-period');
  }

  async #complete(by: 'first-use' | 'grace-period'): Promise<void> {
    const state = await this.#collection();
    const r = state.value.rotation;
    if (r?.state !== 'pending') return;
    // revoked first: a failure leaves the rotation pending, and the next check tries again
    if (r.previousSerial) await this.deps.revoker.revoke(r.previousSerial, null);
    await state.update((s) => {
      if (s.rotation) Object.assign(s.rotation, { state: 'completed', completedAt: new Date(this.deps.clock.now()).toISOString(), completedBy: by });
    });
    this.deps.log.info(`Admin certificate rotation completed (${by}): serial ${r.previousSerial ?? 'unknown'} replaced by ${r.newSerial}`);
  }

  flush(): Promise<void> {
    return this.#state ? this.#state.then((s) => s.flush()) : Promise.resolve();
  }
}
