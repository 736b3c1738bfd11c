// Entry point of lib/system: createSystem picks the host or the sandbox implementation.
import type { SystemConfig } from './config.ts';
import type { SystemContext } from './context.ts';
import { createHostSystem } from './host-system.ts';
import { createSandboxSystem } from './sandbox-system.ts';
import type { System } from './types.ts';

export * from './types.ts';
export { systemConfig } from './config.ts';
export { hostIpResolver } from './context.ts';
export { sandboxControls } from './sandbox-system.ts';

export function createSystem(config: SystemConfig, ctx: SystemContext): System {
  return config.driver === 'host' ? createHostSystem(config, ctx) : createSandboxSystem(config, ctx);
}
