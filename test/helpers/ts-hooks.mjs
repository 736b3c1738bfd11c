// Node module hooks: compile .ts files with esbuild as they are imported, so tests run the sources.
// Every test process (the runner's workers too) imports the same few hundred files: the output is
// kept in node_modules/.cache/relay-ts, one entry per source path, reused while the source is the same.
import { createHash } from 'node:crypto';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { transform, version } from 'esbuild';

const OPTIONS = { loader: 'ts', format: 'esm', target: 'node20', sourcemap: 'inline' };
const cacheDir = fileURLToPath(new URL('../../node_modules/.cache/relay-ts/', import.meta.url));
const ready = mkdir(cacheDir, { recursive: true });

const hash = (...parts) => createHash('sha256').update(parts.join('\0')).digest('hex');

async function compile(path, source) {
  const entry = `${cacheDir}${hash(path)}.mjs`;
  // the first line names what the entry was compiled from
  const stamp = `// ${hash(version, JSON.stringify(OPTIONS), source)}\n`;
  const cached = await readFile(entry, 'utf8').catch(() => '');
  if (cached.startsWith(stamp)) return cached.slice(stamp.length);
  const { code } = await transform(source, { ...OPTIONS, sourcefile: path });
  await ready;
  // written aside and renamed: parallel workers never read half an entry
  const partial = `${entry}.${process.pid}.${Math.random().toString(36).slice(2)}`;
  await writeFile(partial, stamp + code);
  await rename(partial, entry);
  return code;
}

export async function load(url, context, nextLoad) {
  if (!url.endsWith('.ts')) return nextLoad(url, context);
  const path = fileURLToPath(url);
  const source = await readFile(path, 'utf8');
  return { format: 'module', source: await compile(path, source), shortCircuit: true };
}
