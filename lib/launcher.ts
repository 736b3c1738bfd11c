// Entry of dist/server.mjs (build/build.mjs): runs the panel's CommonJS bundle, the file beside this
// one whose SHA-256 the build wrote here, through the V8 code cache of lib/code-cache.ts, kept beside
// this file (or where RELAY_PANEL_CODE_CACHE says). After a start without a usable cache, the cache is
// written once the server has answered its first request (or a few seconds after it listens without
// one), so it holds the functions the start-up and the request path compiled too; where the file
// cannot be written (a read-only install) every start simply compiles, as it would without a cache.
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { compileBundle, readBundle } from './code-cache.ts';
import { REHEARSE_COMMAND, rehearsalCacheFile } from './rehearsal-names.mjs';

/** Set by build/build.mjs: the bundle's file name (beside this file) and its SHA-256. */
declare const RELAY_BUNDLE_FILE: string;
declare const RELAY_BUNDLE_HASH: string;

const filename = fileURLToPath(import.meta.url);
const bundleFile = join(dirname(filename), RELAY_BUNDLE_FILE);
const bundle = compileBundle(readBundle(bundleFile, RELAY_BUNDLE_HASH), {
  key: RELAY_BUNDLE_HASH,
  // a rehearsal's cache goes into its own directory, for the startup snapshot's builder (lib/rehearsal.ts)
  cacheFile: process.argv[2] === REHEARSE_COMMAND && process.argv[3] ? rehearsalCacheFile(process.argv[3]) : process.env.RELAY_PANEL_CODE_CACHE || `${filename}.code-cache`,
  filename: bundleFile,
});
const module: { exports: { warmed?: Promise<unknown> } } = { exports: {} };
bundle.run(module.exports, createRequire(filename), module, filename, dirname(filename), import.meta.url, (specifier) => import(specifier), RELAY_BUNDLE_HASH);
// lib/cli.ts's `warmed` settles after the first answer; operator commands exit before. No
// rejection handler: a failed start stays the unhandled rejection it was.
if (bundle.stale) void module.exports.warmed?.then(() => bundle.save());
