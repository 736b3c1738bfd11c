import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { AppError } from '../errors.ts';
import { failureOutput, run, summarizeStderr } from '../system/common/exec.ts';

const INSTALL_TIMEOUT_MS = 5 * 60_000;

/**
 * `npm install` of one spec into its own prefix, scripts off; returns the package name npm
 * recorded. A prefix per plugin keeps one plugin's dependencies from touching another's, and
 * makes a rollback or a delete one `rm -r`.
 */
export async function npmInstall(npm: string, prefix: string, spec: string): Promise<string> {
  await mkdir(prefix, { recursive: true, mode: 0o700 });
  // Without its own package.json npm would walk up and install into an enclosing project.
  await writeFile(join(prefix, 'package.json'), '{"private":true}\n', { mode: 0o600 });
  const args = ['install', '--ignore-scripts', '--no-audit', '--no-fund', '--prefix', prefix, spec];
  try {
    await run(npm, args, {
      timeoutMs: INSTALL_TIMEOUT_MS,
      // the service account may have no writable home for npm's cache
      env: { ...process.env, npm_config_cache: join(prefix, '..', '.npm-cache'), npm_config_update_notifier: 'false' },
    });
  } catch (error) {
    throw new AppError(400, `Plugin install failed: ${summarizeStderr(failureOutput(error), 4)}`);
  }
  const installed = JSON.parse(await readFile(join(prefix, 'package.json'), 'utf8')) as { dependencies?: Record<string, string> };
  const names = Object.keys(installed.dependencies ?? {});
  if (names.length !== 1) throw new AppError(400, `Plugin install failed: npm recorded ${names.length} packages for ${spec}`);
  return names[0]!;
}
