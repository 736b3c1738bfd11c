// Bundles the server: dist/server.mjs (an ES module launcher) and the bundle it runs beside it,
// dist/server.bundle.cjs (see bundleFileOf).
import { createHash } from 'node:crypto';
import { existsSync, realpathSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { basename, dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { whyBuild, writeStamp } from './build-stamp.mjs';
import { bundleOf, CODE_CACHE_TAKEN_INTO_BLOB, codeCacheNote } from '../lib/startup-snapshot.mjs';
import { blobOf, bundleSnapshotEntry, makeSnapshot, snapshotEntryOf, startScriptOf } from './snapshot.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));

/**
 * esbuild's build, loaded on first use, as the panel's builder is: a start whose bundle is up to
 * date needs neither (loading esbuild was most of such a start's build step).
 */
const build = async (options) => (await import('esbuild')).build(options);

/**
 * zod's namespace object re-exports every locale (about 40 files) although only English is used;
 * a namespace import keeps them all in the bundle. Resolve zod's locale index to English alone.
 */
const zodEnglishOnly = {
  name: 'zod-english-only',
  setup(build) {
    build.onResolve({ filter: /^\.\.\/locales\/index\.js$/ }, (args) =>
      args.importer.includes(`${'node_modules'}/zod/`) ? { path: args.importer, namespace: 'zod-locales' } : undefined,
    );
    build.onLoad({ filter: /.*/, namespace: 'zod-locales' }, (args) => ({
      contents: "export { default as en } from '../locales/en.js';",
      resolveDir: args.path.replace(/\/[^/]*$/, ''),
      loader: 'js',
    }));
  },
};

/**
 * @whatwg-node/node-fetch requires node:https and node:tls when it loads, for outbound fetches the
 * panel's start never makes (the adapter needs only its Request and Response): about 5 ms of a cold
 * start. It gets a stand-in that loads the real module on its first property read.
 */
const lazyNodeFetchBuiltins = {
  name: 'lazy-node-fetch-builtins',
  setup(build) {
    build.onResolve({ filter: /^node:(https|tls)$/ }, (args) =>
      args.importer.includes(`${'node_modules'}/@whatwg-node/node-fetch/`) ? { path: args.path, namespace: 'lazy-builtin' } : undefined,
    );
    build.onLoad({ filter: /.*/, namespace: 'lazy-builtin' }, (args) => ({
      contents: `let real;
const load = () => (real ??= process.getBuiltinModule(${JSON.stringify(args.path)}));
module.exports = new Proxy({}, {
  get: (_, key) => load()[key],
  has: (_, key) => key in load(),
  ownKeys: () => Reflect.ownKeys(load()),
  getOwnPropertyDescriptor: (_, key) => {
    const descriptor = Reflect.getOwnPropertyDescriptor(load(), key);
    return descriptor && { ...descriptor, configurable: true };
  },
});`,
      loader: 'js',
    }));
  },
};

/**
 * The bcrypt worker (lib/users/hash-worker.mjs) as one CommonJS script, inlined into the bundle and
 * started with `new Worker(source, { eval: true })`: no worker file beside the bundle.
 */
async function hashWorkerSource() {
  const result = await build({
    entryPoints: [`${root}lib/users/hash-worker.mjs`],
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    minify: true,
    legalComments: 'none',
    write: false,
    metafile: true,
    logLevel: 'error',
  });
  return { source: result.outputFiles[0].text, inputs: Object.keys(result.metafile.inputs) };
}

/**
 * The bundle that the launcher `outfile` runs: beside it, `server.mjs` -> `server.bundle.cjs`. Its own
 * file rather than a string inside the launcher: V8 scans a 1.5 MB string literal when it compiles
 * the launcher's module (about 10 ms of a cold start).
 */
export const bundleFileOf = bundleOf;

/**
 * The server: `entry` bundled as CommonJS (no top-level await) into bundleFileOf(outfile), and
 * lib/launcher.ts as `outfile`, which carries the bundle's SHA-256 and runs it through a V8 code cache
 * (lib/code-cache.ts). The bundle's source map is `<outfile>.map`.
 */
export async function bundle({ entry = `${root}lib/cli.ts`, outfile = `${root}dist/server.mjs`, quiet = false } = {}) {
  const started = Date.now();
  const shared = { bundle: true, platform: 'node', target: 'node20', minifySyntax: true, minifyWhitespace: true, legalComments: 'none', write: false, metafile: true, logLevel: quiet ? 'error' : 'warning' };
  const bundleFile = bundleFileOf(outfile);
  const hashWorker = await hashWorkerSource();
  const app = await build({
    ...shared,
    define: { RELAY_HASH_WORKER_SOURCE: JSON.stringify(hashWorker.source), 'import.meta.url': 'RELAY_IMPORT_META_URL' },
    entryPoints: [entry],
    outfile: bundleFile,
    format: 'cjs',
    sourcemap: 'external',
    plugins: [zodEnglishOnly, lazyNodeFetchBuiltins],
    // ws's optional native speed-ups are loaded only when installed.
    external: ['bufferutil', 'utf-8-validate'],
  });
  const map = app.outputFiles.find((f) => f.path.endsWith('.map'));
  const source = Buffer.from(`${app.outputFiles.find((f) => f !== map).text}//# sourceMappingURL=${basename(outfile)}.map\n`);
  const launcher = await build({
    ...shared,
    define: { RELAY_BUNDLE_FILE: JSON.stringify(basename(bundleFile)), RELAY_BUNDLE_HASH: JSON.stringify(createHash('sha256').update(source).digest('hex')) },
    entryPoints: [`${root}lib/launcher.ts`],
    outfile,
    format: 'esm',
  });
  await mkdir(dirname(outfile), { recursive: true });
  await writeFile(bundleFile, source);
  await writeFile(outfile, launcher.outputFiles[0].contents);
  await writeFile(`${outfile}.map`, map.contents);
  const snapshotInputs = await bundleSnapshotEntry(outfile, build);
  const bytes = launcher.outputFiles[0].contents.length + source.length;
  if (!quiet) console.log(`built ${outfile} and ${basename(bundleFile)} (${(bytes / 1024).toFixed(0)} KiB) in ${Date.now() - started} ms`);
  const inputs = [...hashWorker.inputs, ...Object.keys(app.metafile.inputs), ...Object.keys(launcher.metafile.inputs), ...snapshotInputs];
  return { outfile, bundleFile, bytes, inputs };
}

/**
 * The startup snapshot beside `outfile` (build/snapshot.mjs), made by this node. A bundle the builder
 * refuses leaves the start on its code cache (dist/server-start falls back by itself): a warning, since
 * test/integration/build/snapshot.test.ts fails on it anyway.
 */
async function snapshotOf(outfile) {
  const started = Date.now();
  try {
    const { codeCache } = await makeSnapshot({ outfile });
    // the note says why when the rehearsal's code is not in the blob: a warning, once
    const line = `built ${blobOf(outfile)} in ${Date.now() - started} ms${codeCacheNote(codeCache)}`;
    if (codeCache === CODE_CACHE_TAKEN_INTO_BLOB) console.log(line);
    else console.warn(`warning: ${line}`);
  } catch (error) {
    console.warn(`warning: no startup snapshot (the start uses the code cache): ${error.message}`);
  }
}

/** Files among esbuild's metafile inputs (relative to the working directory; plugins' virtual modules are not files). */
const filesOf = (inputs) => inputs.map((input) => resolve(input)).filter((file) => existsSync(file));

/** The server and the panel, as `npm start` and `npm run build` make them. Returns the files they were made from, and the executables stamped by stat. */
async function buildAll() {
  const server = await bundle();
  await snapshotOf(server.outfile);
  const { bundlePanel } = await import('./panel.mjs');
  const panel = await bundlePanel();
  // the build's own scripts, the panel's page template and esbuild's version make the output too
  const made = ['build/build.mjs', 'build/panel.mjs', 'build/build-stamp.mjs', 'build/snapshot.mjs', 'lib/startup-snapshot.mjs', 'panel/index.html', 'node_modules/esbuild/package.json'].map((path) => `${root}${path}`);
  // the startup snapshot is made by this node binary: another one (or the same replaced) builds again
  return { inputs: [...filesOf(server.inputs), ...filesOf(panel.inputs), ...made], byStat: [realpathSync(process.execPath)] };
}

/**
 * Builds unless every input of the last build is unchanged and its outputs are there (the stamp,
 * build/build-stamp.mjs); `force` builds anyway. A fresh clone has no stamp and builds once.
 */
export async function buildIfChanged({
  stampFile = `${root}dist/.build-inputs.json`,
  outputs = [`${root}dist/server.mjs`, bundleFileOf(`${root}dist/server.mjs`), `${root}dist/server.mjs.map`, snapshotEntryOf(`${root}dist/server.mjs`), startScriptOf(`${root}dist/server.mjs`), `${root}dist/panel/index.html`],
  make = buildAll,
  force = false,
  base = root,
  log = (line) => console.log(line),
} = {}) {
  const why = force ? 'forced (--force)' : await whyBuild(stampFile, base, outputs);
  if (why === null) {
    log('the bundle is up to date (no source changed since the last build); `node build/build.mjs --force` builds anyway');
    return { built: false };
  }
  log(`building: ${why}`);
  // `make` returns the files (hashed), or those and `byStat`, the executables stamped by stat
  const made = await make();
  const { inputs, byStat = [] } = Array.isArray(made) ? { inputs: made } : made;
  await mkdir(dirname(stampFile), { recursive: true });
  await writeStamp(stampFile, base, inputs, { byStat });
  return { built: true };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  await buildIfChanged({ force: process.argv.includes('--force') });
}
