import type { AnyRoute } from '../../lib/http/route.ts';
import onboardingStatus from './status/show.ts';
import onboardingDomain from './domain/create.ts';
import onboardingVerifyDns from './verify-dns.ts';
import onboardingProvision from './provision.ts';
import onboardingProvisionStream from './provision/stream.ts';

/** The routes under /api/onboarding, each in the file its URL names (the registry test checks it). */
export const routes = [onboardingStatus, onboardingDomain, onboardingVerifyDns, onboardingProvision, onboardingProvisionStream] as const satisfies readonly AnyRoute[];
