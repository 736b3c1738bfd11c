import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';

// Layers point one way (docs/architecture.md): lib/<domain>, lib/state and lib/system never import
// lib/http, and the source tree has no import circle. Type-only imports count too: a circle of
// types is still a circle of modules that cannot be understood one at a time.

const root = fileURLToPath(new URL('../../../', import.meta.url));
const SOURCE_DIRS = ['handlers', 'lib'];
/** lib folders that sit above lib/http (the Node edge) may import it; every other folder may not. */
const ABOVE_HTTP = new Set(['http', 'node']);
/** Files directly in lib/ that assemble the app, and so sit above lib/http too. */
const COMPOSITION_ROOTS = new Set(['lib/compose.ts', 'lib/main.ts', 'lib/cli.ts', 'lib/testing.ts', 'lib/backup-commands.ts']);

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = join(dir, name);
    if (statSync(full).isDirectory()) return sourceFiles(full);
    return name.endsWith('.ts') && !name.endsWith('.d.ts') ? [full] : [];
  });
}

/** Relative specifiers of every static import, re-export and dynamic import of a file. */
export function importSpecifiers(source: string): string[] {
  const pattern = /^\s*(?:import|export)\b[^;'"]*?\bfrom\s*['"]([^'"]+)['"]|^\s*import\s*['"]([^'"]+)['"]|\bimport\(\s*['"]([^'"]+)['"]\s*\)/gm;
  return [...source.matchAll(pattern)].map((m) => m[1] ?? m[2] ?? m[3]!).filter((s) => s.startsWith('.'));
}

function importGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of SOURCE_DIRS.flatMap((d) => sourceFiles(join(root, d)))) {
    const targets = importSpecifiers(readFileSync(file, 'utf8')).map((s) => relative(root, resolve(dirname(file), s)));
    graph.set(relative(root, file), targets);
  }
  return graph;
}

/** Every circle, as the list of files on it (Tarjan's strongly connected components). */
export function importCircles(graph: Map<string, string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const circles: string[][] = [];
  const visit = (node: string) => {
    index.set(node, next);
    low.set(node, next++);
    stack.push(node);
    onStack.add(node);
    for (const target of graph.get(node) ?? []) {
      if (!graph.has(target)) continue;
      if (!index.has(target)) {
        visit(target);
        low.set(node, Math.min(low.get(node)!, low.get(target)!));
      } else if (onStack.has(target)) low.set(node, Math.min(low.get(node)!, index.get(target)!));
    }
    if (low.get(node) !== index.get(node)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== node);
    if (component.length > 1 || (graph.get(node) ?? []).includes(node)) circles.push(component.sort());
  };
  for (const node of graph.keys()) if (!index.has(node)) visit(node);
  return circles;
}

/** Whether a file sits below lib/http: everything in lib/ except lib/http, the edge and the roots. */
function belowHttp(file: string): boolean {
  const parts = file.split('/');
  if (parts[0] !== 'lib') return false;
  return parts.length > 2 ? !ABOVE_HTTP.has(parts[1]!) : !COMPOSITION_ROOTS.has(file);
}

const s = suite('layering');

s('the import reader sees every form of import', () => {
  const source = [
    "import { a } from './a.ts';",
    "import type { B } from '../b.ts';",
    'import {\n  c,\n  d,\n} from "./c.ts";',
    "export { e } from './e.ts';",
    "export * from './f.ts';",
    "import './g.ts';",
    "const h = await import('./h.ts');",
    "import { z } from 'zod';",
  ].join('\n');
  assert.equal(importSpecifiers(source), ['./a.ts', '../b.ts', './c.ts', './e.ts', './f.ts', './g.ts', './h.ts']);
});

s('the circle finder finds circles and nothing else', () => {
  const graph = new Map([
    ['a', ['b']],
    ['b', ['c']],
    ['c', ['a', 'd']],
    ['d', []],
    ['e', ['e']],
  ]);
  assert.equal(importCircles(graph), [['a', 'b', 'c'], ['e']]);
});

s('lib/<domain>, lib/state, lib/system and the shared lib/*.ts modules never import lib/http', () => {
  const upward: string[] = [];
  for (const [file, targets] of importGraph()) {
    if (!belowHttp(file)) continue;
    for (const target of targets) if (target.startsWith('lib/http/')) upward.push(`${file} -> ${target}`);
  }
  assert.equal(upward, []);
});

s('the source tree has no import circle', () => {
  assert.equal(importCircles(importGraph()), []);
});

s.run();
