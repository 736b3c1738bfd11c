import { z } from 'zod';
import type { Clock } from '../clock.ts';
import type { ConfigStore } from '../config.ts';
import { AppError, rateLimited } from '../errors.ts';
import { ipPanelLinked } from '../host-state/desired.ts';
import { IP_PANEL_VHOST } from '../host-state/vhost-specs.ts';
import { runStepsOrFail } from '../steps.ts';
import type { System } from '../system/types.ts';
import { FixedWindowRateLimiter } from '../rate-limit.ts';
import { matchTotpStep, newTotpSecret, otpauthUri } from './totp.ts';
import { issueTwoFactorSession, TWO_FACTOR_SESSION_MS, twoFactorSessionKey } from './two-factor-session.ts';

const TRIES_PER_MINUTE = 5;
/**
 * All addresses together: the per-address count alone lets an attacker holding the admin
 * certificate guess from many addresses at once. At 20 a minute a 6-digit code (±1 step) holds
 * for weeks of continuous guessing; the price is that such a flood also makes the admin wait.
 */
const TRIES_PER_MINUTE_OVERALL = 20;
const ALL_ADDRESSES = '*';
const ISSUER = 'Relay Panel';

export interface TwoFactorDeps {
  config: ConfigStore;
  system: Pick<System, 'proxy'>;
  clock: Clock;
}

/** What POST setup answers, in Portlama's names: the otpauth URI (for the QR code) and the base32 key to type in. */
interface TwoFactorSetup {
  uri: string;
  manualKey: string;
}

export interface IssuedSession {
  value: string;
  maxAgeMs: number;
}

const notEnabled = () => new AppError(400, '2FA is not enabled');
const alreadyEnabled = () => new AppError(409, '2FA is already enabled');
const tooManyAttempts = (retryInMs: number) => rateLimited('Too many attempts. Try again later.', retryInMs);
/** Portlama's words, path included (relative to /api as its routes are), for clients that show them. */
const NO_SETUP = 'No 2FA setup in progress. Call POST /settings/2fa/setup first.';

/**
 * The panel's own admin TOTP (panel2fa in the configuration). While it is enabled the IP-based
 * panel vhost is disabled, so the panel is reachable only on its domain; disabling restores it.
 */
export class TwoFactor {
  readonly #limiter = new FixedWindowRateLimiter(TRIES_PER_MINUTE, 60_000);
  readonly #overall = new FixedWindowRateLimiter(TRIES_PER_MINUTE_OVERALL, 60_000);
  /** The last accepted step per secret: a code is good once, and never after a later one. */
  #lastStep = new Map<string, number>();

  constructor(private readonly deps: TwoFactorDeps) {}

  status(): { enabled: boolean; setupComplete: boolean } {
    const { enabled, setupComplete } = this.deps.config.value.panel2fa;
    return { enabled, setupComplete };
  }

  async setup(): Promise<TwoFactorSetup> {
    const config = this.deps.config.value;
    // Enabling turns the IP-address panel off: without a domain nothing would reach the panel.
    if (!config.domain) throw new AppError(400, 'Domain must be configured before enabling 2FA', { hint: 'Enabling 2FA disables the IP-address panel. A domain is required.' });
    if (config.panel2fa.enabled) throw alreadyEnabled();
    const secret = newTotpSecret();
    await this.deps.config.update({ panel2fa: { enabled: false, secret, setupComplete: false } });
    return { uri: otpauthUri(secret, ISSUER, `admin@${config.domain}`), manualKey: secret };
  }

  /**
   * Ends a setup that was not confirmed: the pending secret is dropped, so a key that was shown
   * (and maybe photographed) can never be confirmed later. Nothing pending is fine too.
   */
  async cancel(): Promise<void> {
    if (this.deps.config.value.panel2fa.enabled) throw alreadyEnabled();
    await this.deps.config.update({ panel2fa: { enabled: false, secret: null, setupComplete: false } });
  }

  async confirm(code: string, clientAddress: string | undefined): Promise<IssuedSession> {
    const { panel2fa } = this.deps.config.value;
    if (panel2fa.enabled) throw alreadyEnabled();
    if (!panel2fa.secret) throw new AppError(400, NO_SETUP);
    this.#checkCode(panel2fa.secret, code, clientAddress);
    const secret = panel2fa.secret;
    await runStepsOrFail('Failed to enable 2FA', [
      { failure: 'IP panel vhost could not be disabled', run: () => this.#ipPanel({ enabled: true }), undo: () => this.#ipPanel({ enabled: false }) },
      { failure: 'Configuration could not be saved', run: () => this.deps.config.update({ panel2fa: { enabled: true, secret, setupComplete: true } }).then(() => undefined) },
    ]);
    return this.#session();
  }

  verify(code: string, clientAddress: string | undefined): IssuedSession {
    const { panel2fa } = this.deps.config.value;
    if (!panel2fa.enabled || !panel2fa.secret) throw notEnabled();
    this.#checkCode(panel2fa.secret, code, clientAddress);
    return this.#session();
  }

  async disable(code: string, clientAddress: string | undefined): Promise<void> {
    const { panel2fa } = this.deps.config.value;
    if (!panel2fa.enabled || !panel2fa.secret) throw notEnabled();
    this.#checkCode(panel2fa.secret, code, clientAddress);
    await runStepsOrFail('Failed to disable 2FA', [
      { failure: 'IP panel vhost could not be enabled', run: () => this.#ipPanel({ enabled: false }), undo: () => this.#ipPanel({ enabled: true }) },
      { failure: 'Configuration could not be saved', run: () => this.deps.config.update({ panel2fa: { enabled: false, secret: null, setupComplete: false } }).then(() => undefined) },
    ]);
  }

  /**
   * Rate limit per client address and overall (every try counts; 429 says when the refusing
   * window ends), then the code: ±1 step, constant time, once.
   */
  #checkCode(secret: string, code: string, clientAddress: string | undefined): void {
    const now = this.deps.clock.now();
    this.#limiter.prune(now);
    const address = clientAddress ?? 'unknown';
    if (!this.#limiter.take(address, now)) throw tooManyAttempts(this.#limiter.retryInMs(address, now));
    if (!this.#overall.take(ALL_ADDRESSES, now)) throw tooManyAttempts(this.#overall.retryInMs(ALL_ADDRESSES, now));
    const step = matchTotpStep(secret, code, now);
    if (step === null || step <= (this.#lastStep.get(secret) ?? -1)) throw new AppError(401, 'Invalid TOTP code');
    this.#lastStep.set(secret, step);
  }

  #session(): IssuedSession {
    const { sessionSecret, panel2fa } = this.deps.config.value;
    const key = twoFactorSessionKey(sessionSecret, panel2fa.secret);
    if (!key) throw new AppError(500, 'Failed to issue a 2FA session: no session secret');
    const { value } = issueTwoFactorSession(key, this.deps.clock.now());
    return { value, maxAgeMs: TWO_FACTOR_SESSION_MS };
  }

  /** Links or unlinks the IP panel as the 2FA about to be saved calls for. */
  #ipPanel(panel2fa: { enabled: boolean }): Promise<void> {
    const { proxy } = this.deps.system;
    return proxy.apply([ipPanelLinked(panel2fa) ? { op: 'put', spec: IP_PANEL_VHOST, enabled: true } : { op: 'disable', name: proxy.vhostName(IP_PANEL_VHOST) }]);
  }
}

/**
 * The body of confirm, verify and disable. A refused code is the spec's 400 `Validation failed`
 * (its first error rule fixes that `error`); Portlama's message is the issue's, in `details.issues`.
 */
export const TotpCodeBody = z.object({ code: z.string().max(6, { message: 'Code must be exactly 6 digits', abort: true }).regex(/^\d{6}$/, 'Code must be exactly 6 digits') });
