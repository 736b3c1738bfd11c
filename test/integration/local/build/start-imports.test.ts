// What a server start evaluates: the modules lib/cli.ts reaches by static imports alone (esbuild's
// metafile, packages left external). Packages the start does not need are imported where first used
// (`await import(...)`); one static import of them from a handler brings them back into every start.
// Not a unit test: esbuild's service, a program of its own, makes the metafile (about a second).
import { build } from 'esbuild';
import { fileURLToPath } from 'node:url';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';

const root = fileURLToPath(new URL('../../../..', import.meta.url));
const s = suite('the start imports');

/** Loaded on first use: archives (tar), uploads (formidable), WebSocket handshakes (ws). */
const LATER = ['tar', 'formidable', 'ws'];

s('the server start reaches no package it loads on first use', async () => {
  const { metafile } = await build({ entryPoints: [`${root}lib/cli.ts`], bundle: true, write: false, metafile: true, platform: 'node', format: 'cjs', packages: 'external', logLevel: 'silent', absWorkingDir: root, define: { RELAY_HASH_WORKER_SOURCE: '""' } });
  const reached = new Set<string>();
  const found = new Map<string, string>();
  const visit = (file: string) => {
    if (reached.has(file)) return;
    reached.add(file);
    for (const edge of metafile.inputs[file]?.imports ?? []) {
      if (edge.kind !== 'import-statement' && edge.kind !== 'require-call') continue;
      if (edge.external) {
        const name = LATER.find((pkg) => edge.path === pkg || edge.path.startsWith(`${pkg}/`));
        if (name && !found.has(name)) found.set(name, file);
      } else visit(edge.path);
    }
  };
  visit('lib/cli.ts');
  assert.ok(reached.has('handlers/index.ts'), 'the walk reached the route table');
  assert.equal([...found].map(([pkg, file]) => `${pkg} from ${file}`), []);
});

s.run();
