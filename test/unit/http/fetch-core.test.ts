// Lib/http is a fetch core that any runtime can call; node stays in lib/node.
import { builtinModules } from 'node:module';
import { createServer } from 'node:http';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { attachNodeEdge } from '../../../lib/node/edge.ts';
import { createTestApp } from '../../../lib/testing.ts';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const s = suite('fetch core');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? sourceFiles(join(dir, entry.name)) : entry.name.endsWith('.ts') ? [join(dir, entry.name)] : [],
  );
}

/** Every module specifier a file names: static and type imports, re-exports, import() and require(). */
function specifiers(source: string): string[] {
  const found: string[] = [];
  for (const match of source.matchAll(/(?:\bfrom\s*|\bimport\s*\(?\s*|\brequire\s*\(\s*)['"]([^'"]+)['"]/g)) found.push(match[1]!);
  return found;
}

const NODE_ONLY = new Set([...builtinModules, 'ws']);
const isNodeOnly = (specifier: string) => specifier.startsWith('node:') || NODE_ONLY.has(specifier) || NODE_ONLY.has(specifier.split('/')[0]!);

s('the specifier scan sees every way of importing', () => {
  const sample = `import type { Duplex } from 'node:stream';\nimport WebSocket from "ws";\nexport { x } from 'fs/promises';\nconst m = await import('node:net');\nrequire('http');`;
  assert.equal(specifiers(sample).filter(isNodeOnly), ['node:stream', 'ws', 'fs/promises', 'node:net', 'http']);
});

s('nothing under lib/http imports node:* or ws', () => {
  const offenders = sourceFiles(join(root, 'lib/http')).flatMap((file) =>
    specifiers(readFileSync(file, 'utf8'))
      .filter(isNodeOnly)
      .map((specifier) => `${relative(root, file)} imports ${specifier}`),
  );
  assert.equal(offenders, []);
});

s('app.fetch answers the runtime\'s own Response, also once a node edge installed the ponyfill', async () => {
  const t = await createTestApp();
  try {
    const before = await t.app.fetch(new Request('http://x/api/health'));
    assert.ok(before instanceof Response);
    attachNodeEdge(createServer(), t.app);
    const after = await t.app.fetch(new Request('http://x/api/health'));
    assert.ok(after instanceof Response);
    assert.equal(await after.json(), { status: 'ok' });
    // The edge's own path keeps the adapter's class, which it sends fastest.
    const forEdge = await t.app.handle(new Request('http://x/api/health'));
    assert.not.ok(forEdge instanceof Response);
  } finally {
    await t.close();
  }
});

s.run();
