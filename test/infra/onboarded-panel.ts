// A sandbox-kit panel driving the loopback infrastructure's real nginx, certbot and pebble: onboarded
// under TEST_DOMAIN, the fake systemctl recording into the infrastructure's folder, and the default
// server written as onboarding's vhost task would (completeOnboarding skips the tasks).
import { fileURLToPath } from 'node:url';
import { DEFAULT_VHOST, tunnelsVhost } from '../../lib/host-state/vhost-specs.ts';
import type { SystemConfigInput } from '../../lib/system/config.ts';
import { createTestApp, type TestApp, type TestAppOptions } from '../../lib/testing.ts';
import { join } from 'node:path';
import { TEST_DOMAIN, type Infra } from './harness.ts';

const FAKE_SYSTEMCTL = fileURLToPath(new URL('../fakes/bin/systemctl', import.meta.url));

type PanelConfig = NonNullable<TestAppOptions["config"]>;

/** `system`: overrides of the infrastructure's system configuration; `config`: of the panel's own. */
export async function onboardedPanelOn(infra: Infra, { system = {}, config = {} }: { system?: SystemConfigInput; config?: PanelConfig } = {}): Promise<TestApp> {
  process.env.FAKE_ARGV_LOG = join(infra.dir, 'systemctl-argv.log');
  process.env.FAKE_SYSTEMD_STATE = join(infra.dir, 'systemd-state.json');
  const t = await createTestApp({ config: { ip: '127.0.0.1', ...config, system: infra.systemConfig({ ...system, binaries: { systemctl: FAKE_SYSTEMCTL, ...system.binaries } }) } });
  await t.completeOnboarding(TEST_DOMAIN, `ops@${TEST_DOMAIN}`);
  // what onboarding's vhosts task writes beside the stack: the default server and the shared tunnels' server
  await t.services.system.proxy.apply([{ op: 'put', spec: DEFAULT_VHOST, enabled: true }, { op: 'put', spec: tunnelsVhost(TEST_DOMAIN, t.services.config.value), enabled: true }]);
  return t;
}

/** The fake systemctl's environment gone again (after the panel closed). */
export function forgetFakeSystemctl(): void {
  delete process.env.FAKE_ARGV_LOG;
  delete process.env.FAKE_SYSTEMD_STATE;
}
