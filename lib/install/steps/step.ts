// What every install step returns, and what the steps hand on to the ones after them.
import type { Owner } from '../files.ts';
import type { StepStatus } from '../report.ts';

export interface Outcome {
  status: StepStatus;
  message: string;
  fix?: string;
}

export interface InstallState {
  ip?: string;
  owner?: Owner;
  p12Password?: string;
  unitChanged?: boolean;
}

export const ROOT: Owner = { uid: 0, gid: 0 };
