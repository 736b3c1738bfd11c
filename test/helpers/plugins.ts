import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { run } from '../../lib/system/common/exec.ts';

const FIXTURES = resolve(import.meta.dirname, '../fixtures/plugins');

/** Packs the fixture plugins with `npm pack` into a new temp folder: name -> `file:` spec of its tarball. */
export async function packFixtures(...names: string[]): Promise<{ dir: string; specs: Record<string, string> }> {
  const dir = await mkdtemp(join(tmpdir(), 'relay-plugins-'));
  const npm = join(dirname(process.execPath), 'npm');
  const specs: Record<string, string> = {};
  await Promise.all(
    names.map(async (name) => {
      const { stdout } = await run(npm, ['pack', '--json', '--pack-destination', dir, join(FIXTURES, name)], { timeoutMs: 60_000 });
      const [packed] = JSON.parse(stdout) as { filename: string }[];
      specs[name] = `file:${join(dir, packed!.filename)}`;
    }),
  );
  return { dir, specs };
}

/**
 * Installs the `hello` fixture plugin (`spec`) through a running panel's API at `url` (development
 * mode: every caller is admin), enables it, and returns what its route answers (nothing more once
 * the install failed).
 */
export async function installAndGreet(url: string, spec: string): Promise<{ installed: number; installText: string; enabled: number; greeting: unknown }> {
  const post = (path: string, body?: unknown) =>
    fetch(`${url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body ?? {}) });
  const install = await post('/api/plugins/install', { spec });
  const installText = await install.text();
  if (install.status !== 201) return { installed: install.status, installText, enabled: 0, greeting: null };
  const enabled = (await post('/api/plugins/hello/enable')).status;
  const greeting = await (await fetch(`${url}/api/hello/greet`)).json();
  return { installed: install.status, installText, enabled, greeting };
}
