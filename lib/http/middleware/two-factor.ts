import { TWO_FACTOR_COOKIE, readCookies, twoFactorSessionKey, verifyTwoFactorSession } from '../../auth/two-factor-session.ts';
import type { Runtime } from '../../runtime.ts';
import { AppError } from '../../errors.ts';
import type { AnyRoute } from '../route.ts';
import type { Middleware } from '../state.ts';

/** Admin requests need a signed 2FA session cookie while panel 2FA is enabled; agents skip this. */
export function requireTwoFactor(route: AnyRoute, services: Runtime): Middleware | undefined {
  if (route.access.public || route.access.twoFactorExempt) return undefined;
  return (request, state) => {
    const config = services.config.value;
    if (!config.panel2fa.enabled || state.identity?.role !== 'admin') return undefined;
    const key = twoFactorSessionKey(config.sessionSecret, config.panel2fa.secret);
    const now = services.clock.now();
    if (!readCookies(request.headers.get('cookie'), TWO_FACTOR_COOKIE).some((cookie) => verifyTwoFactorSession(key, cookie, now))) {
      throw new AppError(401, '2fa_required');
    }
    return undefined;
  };
}
