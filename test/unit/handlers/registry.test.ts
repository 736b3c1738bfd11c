import { readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { routes } from '../../../handlers/index.ts';
import type { AnyRoute } from '../../../lib/http/route.ts';
import { chainFor } from '../../../lib/http/router.ts';
import { createTestApp } from '../../../lib/testing.ts';
import { importSource } from '../../helpers/import-source.ts';

const handlersDir = fileURLToPath(new URL('../../../handlers/', import.meta.url));
const s = suite('handler registry');

/** Every file under handlers/ but the indexes and the start's table of them: one route each. */
function handlerFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = join(dir, name);
    if (statSync(full).isDirectory()) return handlerFiles(full);
    const file = relative(handlersDir, full);
    return name.endsWith('.ts') && name !== 'index.ts' && file !== 'start-table.ts' ? [file] : [];
  });
}

const areas = readdirSync(handlersDir).filter((name) => statSync(join(handlersDir, name)).isDirectory());
const importsOf = (index: string) => [...readFileSync(index, 'utf8').matchAll(/^import (\w+) from '\.\/(.+)';$/gm)];

s('every handler file is imported by its area\'s index, and every area by handlers/index.ts', () => {
  const top = readFileSync(join(handlersDir, 'index.ts'), 'utf8');
  assert.equal(areas.filter((area) => !top.includes(`'./${area}/index.ts'`)), []);
  const listed = areas.flatMap((area) => importsOf(join(handlersDir, area, 'index.ts')).map((m) => join(area, m[2]!)));
  assert.equal(handlerFiles(handlersDir).filter((file) => !listed.includes(file)), []);
});

s('every import of an area\'s index is in its routes', async () => {
  let imported = 0;
  for (const area of areas) imported += importsOf(join(handlersDir, area, 'index.ts')).length;
  assert.is(routes.length, imported);
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

s('every route\'s steps can be built (an app builds them at the route\'s first request, not when it starts)', async () => {
  const t = await createTestApp();
  try {
    const failed = routes.flatMap((r) => {
      try {
        return chainFor(r, t.services).length > 0 ? [] : [`${r.method} ${r.path}: no steps`];
      } catch (error) {
        return [`${r.method} ${r.path}: ${(error as Error).message}`];
      }
    });
    assert.equal(failed, []);
  } finally {
    await t.close();
  }
});

s('every route names roles and a gate', () => {
  for (const r of routes) {
    assert.ok(r.access.roles.length > 0, r.path);
    assert.ok(['open', 'onboarding', 'management'].includes(r.access.gate), r.path);
    // GET /metrics sits where Prometheus looks by default
    assert.ok(r.path.startsWith('/api/') || r.path === '/metrics', r.path);
  }
});

/** The method each name of the vocabulary is for. */
const VOCABULARY: Record<string, readonly string[]> = { list: ['GET'], show: ['GET'], create: ['POST'], update: ['PATCH', 'PUT'], delete: ['DELETE'] };

/**
 * Where a route's file must be: its folder is the URL's path without `/api` and the parameters, and
 * its name the vocabulary's verb for its method, or the URL's last segment when that is an action
 * (`certs/mtls/rotate.ts`), or the parameter that names the action (`services/:name/:action`).
 */
function fileMatches(file: string, route: AnyRoute): boolean {
  const segments = route.path.split('/').filter((part) => part && part !== 'api' && !part.startsWith(':')).map((part) => part.replace(/\.json$/, ''));
  const folder = dirname(file) === '.' ? [] : dirname(file).split('/');
  const name = basename(file, '.ts');
  const same = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((x, i) => x === b[i]);
  if (same(folder, segments) && VOCABULARY[name]?.includes(route.method)) return true;
  if (same(folder, segments.slice(0, -1)) && name === segments.at(-1) && !(name in VOCABULARY)) return true;
  return same(folder, segments) && route.path.endsWith(`/:${name}`);
}

s('folders mirror the URLs and files use one vocabulary', async () => {
  const misplaced: string[] = [];
  for (const file of handlerFiles(handlersDir)) {
    const route = ((await importSource(join(handlersDir, file))) as { default: AnyRoute }).default;
    if (!fileMatches(file, route)) misplaced.push(`${file}: ${route.method} ${route.path}`);
  }
  assert.equal(misplaced, []);
});

s.run();
