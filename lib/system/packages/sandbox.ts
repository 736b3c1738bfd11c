// Sandbox packages: a JSON list in the data dir stands for dpkg's database; installing and removing
// are recorded as events.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { writeFileAtomic } from '../common/atomic-write.ts';
import type { SandboxControls } from '../sandbox/controls.ts';
import { sandboxPaths } from '../sandbox/paths.ts';
import { assertPackageName } from './apt.ts';
import type { PackagesAdapter } from './types.ts';

export function createSandboxPackages(dataDir: string, controls: SandboxControls): PackagesAdapter {
  const file = join(sandboxPaths(dataDir).root, 'packages.json');
  const read = (): Promise<string[]> => readFile(file, 'utf8').then((t) => JSON.parse(t) as string[], () => []);
  const write = (list: string[]) => writeFileAtomic(file, JSON.stringify([...new Set(list)].sort()) + '\n');
  return {
    async installed(name) {
      return (await read()).includes(assertPackageName(name));
    },
    async install(name) {
      await write([...(await read()), assertPackageName(name)]);
      controls.record('packages.install', { name });
    },
    async remove(name) {
      await write((await read()).filter((p) => p !== name));
      controls.record('packages.remove', { name });
    },
  };
}
