// Bundles a runtime-suite entry with esbuild, one file per target: `node` (ES module for Node, Bun
// and Deno, which all load node: specifiers) or `worker` (an ES module Worker for workerd).
import { build } from 'esbuild';
import { builtinModules } from 'node:module';

// An ES module bundle has no `require`; the CommonJS packages it inlines (ws, formidable) call it
// for Node built-ins, which Node, Bun and Deno all provide through node:module.
const REQUIRE_SHIM = "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);";

/**
 * workerd's nodejs_compat serves node:* as ES modules only, and an ES module Worker has no
 * `require`: each built-in (bare or node:) becomes a small bundled module re-exporting the external
 * node: one, so esbuild turns the CommonJS `require('util')` of inlined packages into an import.
 */
const builtinsAsImports = {
  name: 'builtins-as-imports',
  setup(build) {
    const names = new Set(builtinModules.flatMap((name) => [name, `node:${name}`]));
    build.onResolve({ filter: /.*/ }, (args) => {
      if (!names.has(args.path)) return undefined;
      const name = args.path.replace(/^node:/, '');
      return args.namespace === 'builtin' ? { path: `node:${name}`, external: true } : { path: name, namespace: 'builtin' };
    });
    build.onLoad({ filter: /.*/, namespace: 'builtin' }, (args) => ({
      contents: `export * from 'node:${args.path}'; export { default } from 'node:${args.path}';`,
      loader: 'js',
    }));
  },
};

/** Writes `entry` bundled for `target` to `outfile`. */
export async function bundleFor(target, entry, outfile) {
  await build({
    entryPoints: [entry],
    outfile,
    bundle: true,
    format: 'esm',
    target: 'es2022',
    logLevel: 'error',
    // ws's optional native speed-ups are loaded only when installed
    external: ['bufferutil', 'utf-8-validate'],
    ...(target === 'node'
      ? { platform: 'node', banner: { js: REQUIRE_SHIM } }
      : // workerd leaves import.meta.url undefined; createRequire (password-hasher.ts) needs a file URL
        { platform: 'browser', conditions: ['workerd', 'worker'], plugins: [builtinsAsImports], define: { 'import.meta.url': '"file:///worker.mjs"' } }),
  });
}
