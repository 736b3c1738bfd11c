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
