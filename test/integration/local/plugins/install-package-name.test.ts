// Portlama's `packageName` installs a registry plugin end to end, with npm replaced by
// test/fixtures/fake-npm (plugins.npm, the panel's own setting for which npm to run), so the
// registry path is covered without a registry; test/integration/plugins runs the real npm.
// Not a unit test: the fake npm is a child program (sh, then node).
import { existsSync } from 'node:fs';
import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createTestApp } from '../../../../lib/testing.ts';

const s = suite('plugin install by packageName');
const FAKE_NPM = fileURLToPath(new URL('../../../fixtures/fake-npm/npm.mjs', import.meta.url));

/** An executable that runs the fake npm and logs its arguments, one JSON array a line. */
async function fakeNpm(dir: string): Promise<{ path: string; calls: () => Promise<string[][]> }> {
  const path = join(dir, 'npm');
  const log = join(dir, 'npm-calls.jsonl');
  await writeFile(path, `#!/bin/sh\nFAKE_NPM_LOG='${log}' exec '${process.execPath}' '${FAKE_NPM}' "$@"\n`);
  await chmod(path, 0o700);
  const calls = async () => (await readFile(log, 'utf8').catch(() => '')).split('\n').filter(Boolean).map((line) => JSON.parse(line) as string[]);
  return { path, calls };
}

s('packageName under an allowed scope: npm installs that name, 201 with the plugin recorded disabled', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'relay-fake-npm-'));
  const npm = await fakeNpm(dir);
  const t = await createTestApp({ config: { plugins: { allowedScopes: ['@acme'], npm: npm.path } } });
  try {
    await t.completeOnboarding();
    const installed = await t.call('POST', '/api/plugins/install', { body: { packageName: '@acme/hello' } });
    assert.is(installed.status, 201, JSON.stringify(installed.body));
    assert.equal(installed.body.plugin, {
      ...installed.body.plugin,
      name: 'hello',
      packageName: '@acme/hello',
      spec: '@acme/hello',
      version: '1.2.3',
      capabilities: ['hello:read'],
      status: 'disabled',
      enabledAt: null,
    });
    const [call, ...more] = await npm.calls();
    assert.equal(more, [], 'npm ran once');
    assert.is(call?.at(-1), '@acme/hello', 'the name given as packageName');
    assert.ok(call?.includes('--ignore-scripts'));
    assert.ok(existsSync(join(t.services.plugins.dir, 'hello', 'node_modules', '@acme', 'hello', 'server.js')), 'the package moved to its folder');
    assert.equal((await t.call('GET', '/api/plugins/hello')).body.packageName, '@acme/hello');
  } finally {
    await t.close();
    await rm(dir, { recursive: true, force: true });
  }
});

s.run();
