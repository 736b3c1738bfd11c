// The unit workers' compiled copies of the sources (test/helpers/mirror.mjs): a copy sees its
// original's import.meta, and only this checkout's TypeScript files outside node_modules get one.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as uvu from 'uvu';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
// @ts-expect-error plain JS test helper
import { mirrorable, mirrorOf } from '../../helpers/mirror.mjs';
import { importSource } from '../../helpers/import-source.ts';

const s = suite('source copies');
const here = fileURLToPath(import.meta.url);
const repo = join(dirname(here), '../../..');

s('import.meta names the original file, whichever way this file was loaded', () => {
  assert.ok(here.endsWith(join('test', 'unit', 'meta', 'source-copies.test.ts')), here);
  assert.ok(existsSync(here));
  assert.is(import.meta.filename, here);
  assert.is(import.meta.dirname, dirname(here));
  assert.match(readFileSync(join(import.meta.dirname, 'source-copies.test.ts'), 'utf8'), /source copies/);
});

s('copies: TypeScript files of this checkout outside node_modules, under the cache, the tree kept', () => {
  assert.ok(mirrorable(join(repo, 'lib/testing.ts')));
  assert.not.ok(mirrorable(join(repo, 'test/helpers/mirror.mjs')));
  assert.not.ok(mirrorable(join(repo, 'node_modules/zod/index.ts')));
  assert.not.ok(mirrorable('/elsewhere/lib/testing.ts'));
  const copy: string = mirrorOf(join(repo, 'lib/http/app.ts'));
  assert.ok(copy.endsWith(join('lib', 'http', 'app.ts.mjs')), copy);
  assert.ok(copy.includes(join('node_modules', '.cache', 'relay-mirror')), copy);
});

s('a source imported at run time is the module the test files share', async () => {
  const testing = (await importSource(join(repo, 'lib/testing.ts'))) as typeof import('../../../lib/testing.ts');
  const { createTestApp } = await import('../../../lib/testing.ts');
  assert.is(testing.createTestApp, createTestApp);
});

s('uvu is the wrapper that prints a before or after hook\'s error, which uvu itself drops', () => {
  assert.is((uvu as { PRINTS_HOOK_ERRORS?: boolean }).PRINTS_HOOK_ERRORS, true);
});

s.run();
