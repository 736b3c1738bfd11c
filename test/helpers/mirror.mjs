// Compiled copies of the TypeScript sources, for a test process that imports nothing but them: no
// module hooks registered. On Node 20 a registered hook takes every resolve and load of the process
// to the hooks thread and back (a MessageChannel each): importing lib/testing.ts's 559 modules cost
// about 1.6 s of CPU that way, 0.8-0.9 s from these copies (0.4 s as one bundled file, which would
// give a test file that imports a lib module directly a second copy of it).
//
// Each source's copy is node_modules/.cache/relay-mirror/<checkout>/<path>.mjs, its imports of
// other sources pointing at their copies (the tree's shape is kept, so a relative specifier only
// gains `.mjs`), `relay-panel/...` at the sources' copies, other files at the originals by file URL,
// and `import.meta.url`, `dirname` and `filename` at the original, so files beside it are found as
// before. A copy's last lines name its source's content hash: a changed source is compiled again
// the next time a process asks for it.
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const repo = fileURLToPath(new URL('../../', import.meta.url));
const hash = (text) => createHash('sha256').update(text).digest('hex');
const cacheRoot = join(repo, 'node_modules', '.cache', 'relay-mirror', hash(repo).slice(0, 16));
const esbuildVersion = JSON.parse(readFileSync(join(repo, 'node_modules', 'esbuild', 'package.json'), 'utf8')).version;
const OPTIONS = { format: 'esm', platform: 'node', target: 'node20', esbuild: esbuildVersion };
// `uvu` as test/helpers/ts-hooks.mjs resolves it: with a before or after hook's error printed
const UVU_WITH_HOOK_ERRORS = pathToFileURL(join(repo, 'test', 'helpers', 'uvu-hook-errors.mjs')).href;
// what a copy is made with besides its source: the options, this file's own rules and the package's
// exports (the targets of `relay-panel/...`); a change to any of them makes every copy again
const optionsStamp = hash([
  JSON.stringify(OPTIONS),
  readFileSync(fileURLToPath(import.meta.url), 'utf8'),
  JSON.stringify(JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8')).exports),
].join('\0')).slice(0, 16);

/** The copy of a source file of this checkout. */
export const mirrorOf = (source) => `${join(cacheRoot, relative(repo, source))}.mjs`;

/** Whether a file can have a copy: a TypeScript file of this checkout outside node_modules. */
export const mirrorable = (source) => source.endsWith('.ts') && source.startsWith(repo) && !relative(repo, source).split(sep).includes('node_modules');

// the copy's last two lines: `// <options>:<source hash>` and `// imports: <sources>|...` (at the
// end, so a stack's line numbers are esbuild's own)
function trailer(copy) {
  let text;
  try {
    text = readFileSync(copy, 'utf8');
  } catch {
    return undefined;
  }
  const [stamp, imports] = text.slice(text.lastIndexOf('\n// ', text.lastIndexOf('\n// imports: ') - 1) + 1).split('\n');
  if (!stamp?.startsWith('// ') || !imports?.startsWith('// imports: ')) return undefined;
  const list = imports.slice('// imports: '.length);
  return { stamp: stamp.slice(3), imports: list ? list.split('|') : [] };
}

const stampOf = (text) => `${optionsStamp}:${hash(text)}`;

/** Where `relay-panel/<name>` points: the exports map's source condition, as the test hooks resolve it. */
let exportsMap;
function packageSource(specifier) {
  exportsMap ??= JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8')).exports;
  const subpath = `./${specifier.slice('relay-panel/'.length)}`;
  const exact = exportsMap[subpath]?.['relay-panel-source'];
  if (typeof exact === 'string') return join(repo, exact);
  // a subpath pattern (`./handlers/*`): one `*`, the longest prefix wins, as node matches them
  const patterns = Object.keys(exportsMap).filter((key) => {
    const [prefix, suffix, more] = key.split('*');
    return suffix !== undefined && more === undefined && subpath.startsWith(prefix) && subpath.endsWith(suffix) && subpath.length >= key.length - 1;
  });
  const key = patterns.sort((a, b) => b.indexOf('*') - a.indexOf('*'))[0];
  const target = key && exportsMap[key]?.['relay-panel-source'];
  if (typeof target !== 'string') throw new Error(`${specifier}: no relay-panel-source entry in package.json's exports`);
  const [prefix, suffix] = key.split('*');
  return join(repo, target.replace('*', subpath.slice(prefix.length, subpath.length - suffix.length)));
}

const META = '__relayMirrorMeta';

async function compile(sources) {
  const { build } = await import('esbuild');
  const importsOf = new Map(sources.map((source) => [source, new Set()]));
  // the stamp of the text compiled, not of a later read: a source edited meanwhile is compiled again next time
  const stamps = new Map();
  const result = await build({
    entryPoints: sources,
    bundle: true,
    write: false,
    metafile: true,
    outdir: cacheRoot,
    outbase: repo,
    format: OPTIONS.format,
    platform: OPTIONS.platform,
    target: OPTIONS.target,
    // packages stay imports, resolved from the copy's place (under this checkout's node_modules)
    packages: 'external',
    define: { 'import.meta.url': `${META}.url`, 'import.meta.dirname': `${META}.dirname`, 'import.meta.filename': `${META}.filename` },
    logLevel: 'silent',
    plugins: [{
      name: 'mirror',
      setup(b) {
        b.onResolve({ filter: /^uvu$/ }, () => ({ path: UVU_WITH_HOOK_ERRORS, external: true }));
        b.onResolve({ filter: /^(\.|\/|relay-panel\/)/ }, (args) => {
          if (args.kind === 'entry-point') return undefined;
          const imports = importsOf.get(args.importer);
          if (args.path.startsWith('relay-panel/')) {
            const target = packageSource(args.path);
            imports?.add(target);
            const path = relative(dirname(mirrorOf(args.importer)), mirrorOf(target));
            return { path: path.startsWith('.') ? path : `./${path}`, external: true };
          }
          const target = resolve(args.resolveDir, args.path);
          if (mirrorable(target)) {
            imports?.add(target);
            return { path: `${args.path}.mjs`, external: true };
          }
          return { path: pathToFileURL(target).href, external: true };
        });
        b.onLoad({ filter: /\.ts$/ }, (args) => {
          const text = readFileSync(args.path, 'utf8');
          stamps.set(args.path, stampOf(text));
          // the original's import.meta (see `define`), on the first line, so it adds no line (the copy's
          // line numbers are esbuild's output's, not the source's: there is no source map)
          const meta = { url: pathToFileURL(args.path).href, dirname: dirname(args.path), filename: args.path };
          return { contents: `const ${META} = ${JSON.stringify(meta)};${text}`, loader: 'ts' };
        });
      },
    }],
  });
  const byOutput = new Map(Object.entries(result.metafile.outputs).map(([out, info]) => [resolve(out), info.entryPoint && resolve(info.entryPoint)]));
  for (const file of result.outputFiles) {
    const source = byOutput.get(file.path);
    if (!source) continue;
    const copy = mirrorOf(source);
    mkdirSync(dirname(copy), { recursive: true });
    // written aside and renamed: another process may read it meanwhile
    const partial = `${copy}.${process.pid}.${Math.random().toString(36).slice(2)}`;
    const code = file.text.endsWith('\n') ? file.text : `${file.text}\n`;
    writeFileSync(partial, `${code}// ${stamps.get(source)}\n// imports: ${[...importsOf.get(source)].join('|')}`);
    renameSync(partial, copy);
  }
  return importsOf;
}

/** Sources this process found current (or compiled), with the sources each imports: each is checked once. */
const current = new Map();

// What an earlier check found, by source: the source's size and modification time and its copy's,
// with the copy's stamp and imports. A source and copy that both stat as they did then are taken as
// checked without reading and hashing them (951 sources read and hashed were about 0.1 s of each
// unit worker's first file); any other is read, hashed and compared with its copy's trailer.
const indexFile = join(cacheRoot, '.checked.json');
let index;
function readIndex() {
  if (index) return index;
  try {
    const found = JSON.parse(readFileSync(indexFile, 'utf8'));
    index = found.optionsStamp === optionsStamp ? new Map(Object.entries(found.sources)) : new Map();
  } catch {
    index = new Map();
  }
  return index;
}
const statKey = (file) => {
  // the change time too: a tool that puts a modification time back still moves it
  const { size, mtimeMs, ctimeMs } = statSync(file);
  return `${size}:${mtimeMs}:${ctimeMs}`;
};
let indexChanged = false;
function writeIndex() {
  if (!indexChanged) return;
  indexChanged = false;
  try {
    mkdirSync(cacheRoot, { recursive: true });
    // written aside and renamed: another worker may read it meanwhile (the last writer's entries win; each is true)
    const partial = `${indexFile}.${process.pid}.${Math.random().toString(36).slice(2)}`;
    writeFileSync(partial, JSON.stringify({ optionsStamp, sources: Object.fromEntries(index) }));
    renameSync(partial, indexFile);
  } catch {
    // only a cache: the next process checks by content again
  }
}

/** The sources whose copy is missing or names other content; the rest are current from now on. */
function staleOf(sources) {
  const stale = [];
  const known = readIndex();
  for (const source of sources) {
    if (current.has(source)) continue;
    const copy = mirrorOf(source);
    let stats;
    try {
      // both before the read: an edit after it changes the key, and the next check reads again
      stats = `${statKey(source)}|${statKey(copy)}`;
    } catch {
      stale.push(source);
      continue;
    }
    const entry = known.get(source);
    if (entry?.stats === stats) {
      current.set(source, entry.imports);
      continue;
    }
    const found = trailer(copy);
    if (found && found.stamp === stampOf(readFileSync(source, 'utf8'))) {
      current.set(source, found.imports);
      known.set(source, { stats, imports: found.imports });
      indexChanged = true;
    } else stale.push(source);
  }
  return stale;
}

// One process compiles at a time: the runner's workers start together and, on a new checkout, would
// each compile every source. The others wait, then find the copies current.
const lock = join(cacheRoot, '.compiling');

/** The lock's process has ended (killed while compiling), or left it without its pid for a minute. */
function holderGone() {
  try {
    const pid = Number(readFileSync(join(lock, 'pid'), 'utf8'));
    process.kill(pid, 0);
    return false;
  } catch (error) {
    if (error.code === 'ESRCH') return true;
    if (error.code === 'EPERM') return false;
    try {
      return Date.now() - statSync(lock).mtimeMs > 60_000;
    } catch {
      return false;
    }
  }
}
async function compileOnce(sources) {
  mkdirSync(cacheRoot, { recursive: true });
  for (;;) {
    try {
      mkdirSync(lock);
      writeFileSync(join(lock, 'pid'), String(process.pid));
      break;
    } catch (error) {
      if (error.code !== 'EEXIST') throw error;
    }
    if (holderGone()) rmSync(lock, { recursive: true, force: true });
    else await new Promise((done) => setTimeout(done, 50));
  }
  try {
    const stale = staleOf(sources);
    if (stale.length) for (const [source, imports] of await compile(stale)) current.set(source, [...imports]);
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

// The trees the unit files load from, checked and compiled in one go on a process's first file:
// following imports level by level took one esbuild run per level on a new checkout.
const TREES = ['lib', 'handlers', 'test/unit', 'test/helpers', 'test/fakes'];
let swept;
function sweep() {
  return (swept ??= (async () => {
    const sources = TREES.flatMap((tree) => {
      try {
        // with the entries' types: by names alone, Node 20 stats every entry to find the directories
        return readdirSync(join(repo, tree), { recursive: true, withFileTypes: true })
          .filter((entry) => entry.isFile())
          .map((entry) => join(entry.parentPath ?? entry.path, entry.name))
          .filter(mirrorable);
      } catch {
        return [];
      }
    });
    const stale = staleOf(sources);
    if (stale.length) await compileOnce(stale);
    // the copies just compiled are indexed by the next process's check
    writeIndex();
  })());
}

/** Sources whose imports this process has followed. */
const followed = new Set();

/** Makes the copies of `source` and of every source it imports current; resolves with the copy's file URL. */
export async function mirrored(source) {
  await sweep();
  let pending = [source];
  while (pending.length) {
    const next = [];
    for (const file of pending) {
      if (followed.has(file)) continue;
      if (!current.has(file)) await compileOnce([file]);
      const imports = current.get(file);
      if (!imports) throw new Error(`${file}: no compiled copy`);
      // only once its copy is current: a call meanwhile must not take it as done
      followed.add(file);
      next.push(...imports);
    }
    pending = next;
  }
  return pathToFileURL(mirrorOf(source)).href;
}
