// What a server start evaluates: the modules lib/cli.ts reaches by static imports alone (esbuild's
// metafile, packages left external). Packages the start does not need are imported where first used
// (`await import(...)`); one static import of them from a handler brings them back into every start.
// In the one-file bundle a module reached only by `import()` is wrapped to run on that call, so the
// handler modules, which handlers/start-table.ts imports that way, run on their route's first request.
// Not a unit test: esbuild's service, a program of its own, makes the metafile (about a second).
import { build } from 'esbuild';
import { fileURLToPath } from 'node:url';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';

const root = fileURLToPath(new URL('../../../..', import.meta.url));
const s = suite('the start imports');

/** Loaded on first use: archives (tar), uploads (formidable), WebSocket handshakes (ws). */
const LATER = ['tar', 'formidable', 'ws'];

async function startImports() {
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
  return { metafile, reached, found };
}

s('the server start reaches no package it loads on first use', async () => {
  const { reached, found } = await startImports();
  assert.ok(reached.has('handlers/start-table.ts'), 'the walk reached the route table');
  assert.equal([...found].map(([pkg, file]) => `${pkg} from ${file}`), []);
});

s('the server start evaluates no handler module: each is imported on its route\'s first request', async () => {
  const { metafile, reached } = await startImports();
  assert.equal([...reached].filter((file) => file.startsWith('handlers/') && file !== 'handlers/start-table.ts'), []);
  const later = (metafile.inputs['handlers/start-table.ts']?.imports ?? []).filter((edge) => edge.kind === 'dynamic-import').map((edge) => edge.path);
  assert.ok(later.includes('handlers/health/show.ts') && later.includes('handlers/tunnels/list.ts'), 'the table imports the handler modules when asked');
});

s.run();
