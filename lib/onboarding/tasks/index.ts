import { installAuthPortal } from './auth-portal.ts';
import { issueCertificates } from './certificates.ts';
import { markCompleted } from './complete.ts';
import type { ProvisioningTask } from './context.ts';
import { verifyServices } from './services.ts';
import { installTunnelServer } from './tunnel-server.ts';
import { writeVhosts } from './vhosts.ts';

export type { ProvisioningTask, TaskContext } from './context.ts';

/** The spec's six tasks, in its order. */
export const PROVISIONING_TASKS: readonly ProvisioningTask[] = [
  installTunnelServer,
  installAuthPortal,
  issueCertificates,
  writeVhosts,
  verifyServices,
  markCompleted,
];
