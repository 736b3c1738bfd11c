// Node module hooks: compile .ts files with esbuild as they are imported, so tests run the sources.
// Every test process (the runner's workers too) imports the same few hundred files: the output is
// kept in node_modules/.cache/relay-ts, one entry per source path, reused while the source is the same.
// These hooks run on a thread of their own that does nothing else, so files are read synchronously
// (no thread-pool round trips), and esbuild is loaded only when an entry is missing or stale.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { mkdir, rename, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const OPTIONS = { loader: 'ts', format: 'esm', target: 'node20', sourcemap: 'inline' };
const cacheDir = fileURLToPath(new URL('../../node_modules/.cache/relay-ts/', import.meta.url));
const esbuildVersion = JSON.parse(readFileSync(createRequire(import.meta.url).resolve('esbuild/package.json'), 'utf8')).version;

const hash = (...parts) => createHash('sha256').update(parts.join('\0')).digest('hex');

function readOrEmpty(path) {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return '';
  }
}

async function compile(path, source) {
  const entry = `${cacheDir}${hash(path)}.mjs`;
  // the first line names what the entry was compiled from
  const stamp = `// ${hash(esbuildVersion, JSON.stringify(OPTIONS), source)}\n`;
  const cached = readOrEmpty(entry);
  if (cached.startsWith(stamp)) return cached.slice(stamp.length);
  const { transform } = await import('esbuild');
  const { code } = await transform(source, { ...OPTIONS, sourcefile: path });
  await mkdir(cacheDir, { recursive: true });
  // written aside and renamed: parallel workers never read half an entry
  const partial = `${entry}.${process.pid}.${Math.random().toString(36).slice(2)}`;
  await writeFile(partial, stamp + code);
  await rename(partial, entry);
  return code;
}

// `relay-panel/...` (the package's own name, as the README's examples import it) resolves to the
// sources here: the exports map's `relay-panel-source` condition, so no dist-lib/ build is needed.
const SOURCE_CONDITION = 'relay-panel-source';

// `uvu` as the tests import it prints a before or after hook's error, which uvu itself drops
const UVU_WITH_HOOK_ERRORS = new URL('./uvu-hook-errors.mjs', import.meta.url).href;

export async function resolve(specifier, context, nextResolve) {
  if (specifier === 'uvu' && context.parentURL !== UVU_WITH_HOOK_ERRORS) return { url: UVU_WITH_HOOK_ERRORS, shortCircuit: true };
  if (!specifier.startsWith('relay-panel/')) return nextResolve(specifier, context);
  return nextResolve(specifier, { ...context, conditions: [...context.conditions, SOURCE_CONDITION] });
}

export async function load(url, context, nextLoad) {
  if (!url.endsWith('.ts')) return nextLoad(url, context);
  const path = fileURLToPath(url);
  return { format: 'module', source: await compile(path, readFileSync(path, 'utf8')), shortCircuit: true };
}
