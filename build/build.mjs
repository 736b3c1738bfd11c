// Bundles the server into one ESM file: dist/server.mjs.
import { build } from 'esbuild';
import { fileURLToPath } from 'node:url';
import { bundlePanel } from './panel.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));

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
 * The bcrypt worker (lib/users/hash-worker.mjs) as one CommonJS script, inlined into the bundle and
 * started with `new Worker(source, { eval: true })`: the server stays a single file.
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
    logLevel: 'error',
  });
  return result.outputFiles[0].text;
}

export async function bundle({ entry = `${root}lib/cli.ts`, outfile = `${root}dist/server.mjs`, quiet = false } = {}) {
  const started = Date.now();
  const result = await build({
    define: { RELAY_HASH_WORKER_SOURCE: JSON.stringify(await hashWorkerSource()) },
    entryPoints: [entry],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    sourcemap: 'linked',
    minifySyntax: true,
    minifyWhitespace: true,
    plugins: [zodEnglishOnly],
    legalComments: 'none',
    metafile: true,
    // ws and formidable's helpers (dezalgo -> asap) require() node built-ins; an ESM bundle needs a real require for them.
    banner: { js: "import { createRequire as __relayCreateRequire } from 'node:module'; const require = __relayCreateRequire(import.meta.url);" },
    // ws's optional native speed-ups are loaded only when installed.
    external: ['bufferutil', 'utf-8-validate'],
    logLevel: quiet ? 'error' : 'warning',
  });
  const bytes = Object.values(result.metafile.outputs).find((o) => o.entryPoint)?.bytes ?? 0;
  if (!quiet) console.log(`built ${outfile} (${(bytes / 1024).toFixed(0)} KiB) in ${Date.now() - started} ms`);
  return { outfile, bytes };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  await bundle();
  await bundlePanel();
}
