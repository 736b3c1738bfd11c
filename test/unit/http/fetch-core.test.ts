// Issue 10 item 1: lib/http is a fetch core that any runtime can call; node stays in lib/node.
import { spawnSync } from 'node:child_process';
import { builtinModules } from 'node:module';
import { createServer } from 'node:http';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { attachNodeEdge } from '../../../lib/node/edge.ts';
import { makeTestApp } from '../../helpers/app.ts';

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
  const t = await makeTestApp();
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

s('in a plain node script, app.fetch gives an instanceof Response', () => {
  const script = `
    import { mkdtempSync } from 'node:fs';
    import { tmpdir } from 'node:os';
    import { join } from 'node:path';
    import { routes } from './handlers/index.ts';
    import { ConfigStore } from './lib/config.ts';
    import { createApp } from './lib/http/app.ts';
    import { silentLogger } from './lib/log.ts';
    import { createRuntime } from './lib/runtime.ts';
    import { openStore } from './lib/state/store.ts';
    import { createSystem } from './lib/system/index.ts';
    const dir = mkdtempSync(join(tmpdir(), 'relay-plain-'));
    const config = await ConfigStore.create(join(dir, 'config.json'), {
      ip: '203.0.113.10', domain: null, email: null, dataDir: join(dir, 'data'), onboarding: { status: 'FRESH' }, system: { driver: 'sandbox' },
    });
    const store = await openStore(config.value.dataDir);
    const system = createSystem(config.value.system, { dataDir: store.dataDir });
    const app = createApp(createRuntime({ mode: 'production', config, store, system, log: silentLogger() }), routes);
    const response = await app.fetch(new Request('http://x/api/health'));
    console.log(JSON.stringify({ standard: response instanceof Response, body: await response.json() }));
    await app.close();
  `;
  const run = spawnSync(process.execPath, ['--import', join(root, 'test/helpers/register.mjs'), '--input-type=module', '-e', script], {
    cwd: root,
    encoding: 'utf8',
    timeout: 20_000,
  });
  assert.is(run.status, 0, run.stderr);
  assert.equal(JSON.parse(run.stdout.trim().split('\n').pop()!), { standard: true, body: { status: 'ok' } });
});

s.run();
