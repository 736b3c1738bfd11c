import type { Runtime } from '../../runtime.ts';
import { AppError } from '../../errors.ts';
import type { AnyRoute } from '../route.ts';
import type { Middleware } from '../state.ts';

/** Management routes wait for COMPLETED (503); onboarding routes close after it (410). */
export function onboardingGate(route: AnyRoute, services: Runtime): Middleware | undefined {
  const gate = route.access.gate;
  if (gate === 'open') return undefined;
  return () => {
    const status = services.config.value.onboarding.status;
    if (gate === 'management' && status !== 'COMPLETED') {
      throw new AppError(503, 'Onboarding not complete', undefined, { onboardingStatus: status });
    }
    if (gate === 'onboarding' && status === 'COMPLETED') throw new AppError(410, 'Onboarding already completed');
    return undefined;
  };
}
