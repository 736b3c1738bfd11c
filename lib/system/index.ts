// Entry point of lib/system: createSystem picks the host or the sandbox implementation.
import type { SystemConfig } from './config.ts';
import type { SystemContext } from './context.ts';
import { createHostSystem } from './host/index.ts';
import { createSandboxSystem } from './sandbox/index.ts';
import type { System } from './types.ts';

export * from './types.ts';
export { SystemConfigSchema, systemConfig, type SystemConfig, type SystemConfigInput } from './config.ts';
export { hostIpResolver, type SandboxDnsResolver, type SystemContext } from './context.ts';
export { sandboxControls, isSandboxSystem, type FailurePoint, type SandboxControls, type SandboxEvent } from './sandbox/index.ts';
export { renderVhost, vhostName, PUBLIC_PANEL_PATHS } from './nginx/templates.ts';
export { writeFileAtomic, writeSecretFile } from './atomic-write.ts';

export function createSystem(config: SystemConfig, ctx: SystemContext): System {
  return config.driver === 'host' ? createHostSystem(config, ctx) : createSandboxSystem(config, ctx);
}
