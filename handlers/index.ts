import type { AnyRoute } from '../lib/http/route.ts';
import health from './health.ts';
import onboardingStatus from './onboarding/status.ts';
import tunnelsList from './tunnels/list.ts';

// Every route, listed by hand: the bundle cannot glob at run time. A test checks that each file
// under handlers/ appears here and that no method and path pair repeats.
// Static paths come before parameterized ones with the same prefix (itty matches in order).
export const routes: readonly AnyRoute[] = [
  health,
  onboardingStatus,
  tunnelsList,
];
