import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { routes } from '../../../handlers/index.ts';

const handlersDir = fileURLToPath(new URL('../../../handlers/', import.meta.url));
const s = suite('handler registry');

function handlerFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = join(dir, name);
    if (statSync(full).isDirectory()) return handlerFiles(full);
    return name.endsWith('.ts') && full !== join(handlersDir, 'index.ts') ? [relative(handlersDir, full)] : [];
  });
}

s('every file under handlers/ is listed in handlers/index.ts', () => {
  const index = readFileSync(join(handlersDir, 'index.ts'), 'utf8');
  const missing = handlerFiles(handlersDir).filter((file) => !index.includes(`'./${file}'`));
  assert.equal(missing, []);
});

s('every listed import is used in the routes array', () => {
  const index = readFileSync(join(handlersDir, 'index.ts'), 'utf8');
  const imported = [...index.matchAll(/^import (\w+) from '\.\/.+';$/gm)].map((m) => m[1]);
  assert.is(routes.length, imported.length);
});

s('no method and path pair appears twice', () => {
  const seen = new Map<string, number>();
  for (const r of routes) seen.set(`${r.method} ${r.path}`, (seen.get(`${r.method} ${r.path}`) ?? 0) + 1);
  assert.equal([...seen].filter(([, n]) => n > 1), []);
});

// A handler's types come from its schemas; generics spelled by hand could drift from them.
s('no route spells its generics by hand', () => {
  const spelled = handlerFiles(handlersDir).filter((file) => /\b(route|wsRoute)</.test(readFileSync(join(handlersDir, file), 'utf8')));
  assert.equal(spelled, []);
});

s('every route names roles and a gate', () => {
  for (const r of routes) {
    assert.ok(r.access.roles.length > 0, r.path);
    assert.ok(['open', 'onboarding', 'management'].includes(r.access.gate), r.path);
    // GET /metrics sits where Prometheus looks by default
    assert.ok(r.path.startsWith('/api/') || r.path === '/metrics', r.path);
  }
});

s.run();
