// A unit's state as the installer's commands read it: systemctl is-active's word (its exit status
// says the same: 3 inactive, 4 unknown unit), 'unknown' when systemctl cannot tell at all.
import { parseActiveState } from '../system/systemd/systemd-output.ts';
import type { Installation } from './installation.ts';

export function unitState(inst: Installation, unit: string): Promise<string> {
  return inst.run(inst.system.binaries.systemctl, ['is-active', unit], [1, 2, 3, 4]).then((r) => parseActiveState(r.stdout), () => 'unknown');
}

export const isUnitActive = async (inst: Installation, unit: string): Promise<boolean> => (await unitState(inst, unit)) === 'active';
