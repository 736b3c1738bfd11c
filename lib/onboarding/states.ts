// Which onboarding status each step accepts. Anything else is a 409 naming both, so a client can
// tell "you are early" from "you are late" without guessing. (COMPLETED never gets here: the
// router's onboarding gate answers 410 first.)
import type { OnboardingStatus } from '../config.ts';
import { AppError } from '../errors.ts';

const REQUIRED_STATUS = {
  domain: ['FRESH', 'DOMAIN_SET'],
  'verify-dns': ['DOMAIN_SET', 'DNS_READY'],
  provision: ['DNS_READY', 'PROVISIONING'],
} as const satisfies Record<string, readonly OnboardingStatus[]>;

type OnboardingStep = keyof typeof REQUIRED_STATUS;

const ACTION: Record<OnboardingStep, string> = {
  domain: 'Setting the domain',
  'verify-dns': 'DNS verification',
  provision: 'Provisioning',
};

function wrongState(step: OnboardingStep, current: OnboardingStatus): AppError {
  const required: readonly OnboardingStatus[] = REQUIRED_STATUS[step];
  return new AppError(409, `${ACTION[step]} requires onboarding status ${required.join(' or ')}; current status is ${current}`, {
    currentStatus: current,
    requiredStatus: [...required],
  });
}

export function assertStatusFor(step: OnboardingStep, current: OnboardingStatus): void {
  const required: readonly OnboardingStatus[] = REQUIRED_STATUS[step];
  if (!required.includes(current)) throw wrongState(step, current);
}
