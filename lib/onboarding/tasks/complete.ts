import type { ProvisioningTask } from './context.ts';

// Task 6. The status write opens the management routes and closes the onboarding ones (410).
export const markCompleted: ProvisioningTask = {
  id: 'complete',
  title: 'Complete onboarding',
  async run({ config, log }) {
    log('Marking onboarding as completed');
    await config.update({ onboarding: { status: 'COMPLETED' } });
    return 'Onboarding completed: the panel is ready';
  },
};
