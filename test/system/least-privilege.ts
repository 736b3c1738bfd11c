// What the least-privilege test needs from the box: the panel unit's sandbox as `systemd-run -p`
// properties (the same locks around any command), and systemd's exposure score of a unit.
import type { Box } from './box.ts';

/** Lines of the installed unit's [Service] section that are the sandbox, not what to run. */
const NOT_SANDBOX = /^(ExecStart|Restart|RestartSec|Environment|CacheDirectory)=/;

export async function sandboxProperties(box: Box, unit: string): Promise<string[]> {
  const text = await box.sh(['cat', `/etc/systemd/system/${unit}`]);
  const service = text.split(/^\[Service\]$/m)[1]!.split(/^\[/m)[0]!;
  return service.split('\n').map((l) => l.trim()).filter((l) => l && !l.startsWith('#') && !NOT_SANDBOX.test(l));
}

/** `argv` run once inside the unit's sandbox (a transient service with the same properties). */
export function inSandbox(box: Box, properties: string[], argv: string[]) {
  return box.run(['systemd-run', '--wait', '--pipe', '--quiet', '--collect', ...properties.flatMap((p) => ['-p', p]), '--', ...argv]);
}

/** `systemd-analyze security`'s overall exposure (0 best, 10 worst) for a unit. */
export async function exposure(box: Box, unit: string): Promise<number> {
  const out = await box.sh(['systemd-analyze', 'security', '--no-pager', unit]);
  const m = /Overall exposure level for \S+: (\d+\.\d+)/.exec(out);
  if (!m) throw new Error(`no exposure level in:\n${out}`);
  return Number(m[1]);
}
