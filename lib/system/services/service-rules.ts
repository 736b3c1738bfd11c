// What services.* accept, the same on host and sandbox.
import { SERVICE_ACTIONS, SERVICE_NAMES, SystemError, type ServiceAction, type ServiceName } from '../types.ts';

export function assertServiceName(name: ServiceName): ServiceName {
  if (!SERVICE_NAMES.includes(name)) throw new SystemError(`Unknown service '${String(name)}'`);
  return name;
}

/** A known service and action; the panel never stops itself (it would be gone, unable to answer). */
export function assertServiceControl(name: ServiceName, action: ServiceAction): void {
  assertServiceName(name);
  if (!SERVICE_ACTIONS.includes(action)) throw new SystemError(`Unknown action '${String(action)}'`);
  if (name === 'panel' && action === 'stop') throw new SystemError('The panel cannot stop itself');
}
