// Node module hooks: compile .ts files with esbuild as they are imported, so tests run the sources.
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { transform } from 'esbuild';

export async function load(url, context, nextLoad) {
  if (!url.endsWith('.ts')) return nextLoad(url, context);
  const path = fileURLToPath(url);
  const source = await readFile(path, 'utf8');
  const out = await transform(source, {
    loader: 'ts', format: 'esm', target: 'node20', sourcemap: 'inline', sourcefile: path,
  });
  return { format: 'module', source: out.code, shortCircuit: true };
}
