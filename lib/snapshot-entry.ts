// Entry of `node --build-snapshot` (build/snapshot.mjs, bundled as dist/server.snapshot.cjs):
//
//   node <flags> --snapshot-blob <blob> --build-snapshot server.snapshot.cjs <bundle> <launcher> [<code cache>]
//
// evaluates the panel's bundle, which reads no configuration, environment or clock at evaluation
// (lib/cli.ts defers its main() while a snapshot is built), and V8 serializes the heap into <blob>.
// A start from it, `node <flags> --snapshot-blob <blob> <launcher> [args]`, begins with the bundle
// evaluated and runs its main(): everything the process environment decides is read from there on.
// The blob keeps the bytecode of every function compiled when it is made: the bundle's evaluation,
// and with a code cache (the launcher's, of a rehearsal start: lib/rehearsal.ts) every function that
// start ran, which a start from the blob then does not compile again.
import { createHash } from 'node:crypto';
import { isAscii } from 'node:buffer';
import * as fs from 'node:fs';
import { dirname, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { startupSnapshot } from 'node:v8';
import vm from 'node:vm';
import { wrapBundle, type BundleFunction } from './bundle-parameters.ts';
import { CODE_CACHE_TAKEN } from './rehearsal-names.mjs';
import { readCacheFile } from './code-cache-file.ts';

/**
 * The builtins Node 20 can serialize (its list in lib/internal/main/mksnapshot.js). Any other module
 * the bundle requires as it evaluates gets a stand-in that loads it on its first property read after
 * the start: node:http, for one, cannot be kept (its parser binding makes V8 abort the build) and
 * cannot even load in the builder (it calls Array.prototype.toSorted, which the builder's context lacks).
 */
const SERIALIZABLE = new Set(['assert', 'assert/strict', 'buffer', 'console', 'constants', 'crypto', 'diagnostics_channel', 'dns', 'events', 'fs', 'fs/promises', 'net', 'os', 'path', 'path/posix', 'path/win32', 'process', 'punycode', 'querystring', 'stream', 'stream/promises', 'string_decoder', 'sys', 'timers', 'timers/promises', 'url', 'util', 'util/types', 'v8', 'zlib']);

/** The builder's own `require`: builtins only. */
declare const require: (id: string) => unknown;

const [bundleArgument, launcherArgument, codeCacheArgument] = process.argv.slice(2);
if (!bundleArgument || !launcherArgument) throw new Error('usage: node --snapshot-blob <blob> --build-snapshot server.snapshot.cjs <bundle> <launcher> [<code cache>]');
const bundleFile = resolve(bundleArgument);
const launcherFile = resolve(launcherArgument);

let launcherRequire: NodeJS.Require | undefined;
/** After the start: a builtin, else a package beside the launcher (ws's optional speed-ups), as the launcher's own `require` finds it. */
function runtimeRequire(id: string): unknown {
  const builtin = process.getBuiltinModule(id);
  if (builtin) return builtin;
  const { createRequire } = process.getBuiltinModule('node:module');
  return (launcherRequire ??= createRequire(launcherFile))(id);
}

/** Read while the snapshot is built, it throws: what it gave would be the builder's, frozen into every start. */
function deferred(id: string): object {
  let real: Record<PropertyKey, unknown> | undefined;
  const load = () => {
    if (real) return real;
    if (startupSnapshot.isBuildingSnapshot()) throw new Error(`${id} is read while the startup snapshot is built: the bundle must load it on first use`);
    return (real ??= runtimeRequire(id) as Record<PropertyKey, unknown>);
  };
  return new Proxy({}, {
    // esbuild's interop asks whether a module is an ES module's namespace; a builtin never is
    get: (_, key) => (key === '__esModule' ? undefined : load()[key]),
    has: (_, key) => key in load(),
    ownKeys: () => Reflect.ownKeys(load()),
    getOwnPropertyDescriptor: (_, key) => {
      const descriptor = Reflect.getOwnPropertyDescriptor(load(), key);
      return descriptor && { ...descriptor, configurable: true };
    },
  });
}

/** The bundle's `require`: while the snapshot is built, the builtins it can keep and stand-ins for the rest. */
function bundleRequire(id: string): unknown {
  if (!startupSnapshot.isBuildingSnapshot()) return runtimeRequire(id);
  const name = id.startsWith('node:') ? id.slice(5) : id;
  return SERIALIZABLE.has(name) ? require(`node:${name}`) : deferred(id);
}

let importer: ((specifier: string) => Promise<unknown>) | undefined;
/** `import()` of a plugin: a start from a snapshot has no dynamic import callback of its own. */
const importModule = (specifier: string): Promise<unknown> =>
  (importer ??= new vm.Script('(specifier) => import(specifier)', { filename: launcherFile, importModuleDynamically: vm.constants.USE_MAIN_CONTEXT_DEFAULT_LOADER }).runInThisContext() as typeof importer)!(specifier);

/**
 * Runs `evaluate` with the process's environment, arguments, working directory, clock and randomness
 * refusing to be read: whatever the bundle read from them as it evaluates would be the builder's,
 * frozen into every start from the blob (one session secret, one clock for every box). The build
 * fails naming what was read, and test/integration/build/snapshot.test.ts with it.
 */
function refusingProcessState<T>(evaluate: () => T): T {
  const refuse = (what: string): never => {
    throw new Error(`${what} is read while the startup snapshot is built: every start from it would get the builder's; read it when main() runs`);
  };
  // a stand-in a module kept a reference to (`const now = Date.now`) lives on in the blob: after the
  // start it answers as the real one, and only while the snapshot is built does it refuse
  const building = () => startupSnapshot.isBuildingSnapshot();
  const refusing = (what: string, live: () => object) => new Proxy({}, {
    get: (_, key) => (building() ? (typeof key === 'symbol' ? undefined : refuse(`${what}.${key}`)) : Reflect.get(live(), key)),
    set: (_, key, value) => (building() ? refuse(`${what}.${String(key)}`) : Reflect.set(live(), key, value)),
    has: (_, key) => (building() ? refuse(`${what}.${String(key)}`) : Reflect.has(live(), key)),
    ownKeys: () => (building() ? refuse(what) : Reflect.ownKeys(live())),
    getOwnPropertyDescriptor: (_, key) => {
      const descriptor = building() ? refuse(`${what}.${String(key)}`) : Reflect.getOwnPropertyDescriptor(live(), key);
      return descriptor && { ...descriptor, configurable: true };
    },
  });
  const crypto = require('node:crypto') as Record<string, unknown>;
  const saved: Array<[object, PropertyKey, unknown]> = [];
  const replace = (owner: object, key: PropertyKey, value: unknown) => {
    saved.push([owner, key, (owner as Record<PropertyKey, unknown>)[key]]);
    Object.defineProperty(owner, key, { value, writable: true, configurable: true });
  };
  const refusingCall = (owner: Record<string, unknown>, name: string, what: string) => {
    const real = owner[name] as (...args: unknown[]) => unknown;
    replace(owner, name, function (this: unknown, ...args: unknown[]) {
      return building() ? refuse(what) : real.apply(this, args);
    });
  };
  replace(process, 'env', refusing('process.env', () => process.env));
  replace(process, 'argv', refusing('process.argv', () => process.argv));
  refusingCall(process as unknown as Record<string, unknown>, 'cwd', 'process.cwd()');
  refusingCall(Date as unknown as Record<string, unknown>, 'now', 'Date.now()');
  refusingCall(Math as unknown as Record<string, unknown>, 'random', 'Math.random()');
  for (const name of ['randomBytes', 'randomUUID', 'randomInt', 'randomFillSync']) refusingCall(crypto, name, `crypto.${name}()`);
  try {
    return evaluate();
  } finally {
    for (const [owner, key, value] of saved.reverse()) Object.defineProperty(owner, key, { value, writable: true, configurable: true });
  }
}

const bytes = fs.readFileSync(bundleFile);
const bundleHash = createHash('sha256').update(bytes).digest('hex');
// the rehearsal's cache, read as the launcher reads its own: this bundle's, and no one else's to write
const cachedData = codeCacheArgument ? readCacheFile(fs, codeCacheArgument, bundleHash) : undefined;
const script = new vm.Script(wrapBundle(isAscii(bytes) ? bytes.toString('latin1') : bytes.toString('utf8')), { filename: bundleFile, cachedData });
// makeSnapshot (lib/startup-snapshot.mjs) reads this: a cache V8 refused (other flags, another node) only costs the gain
if (cachedData && !script.cachedDataRejected) console.log(CODE_CACHE_TAKEN);
const run = script.runInThisContext() as BundleFunction;
const bundle: { exports: { main?: () => Promise<void> } } = { exports: {} };
refusingProcessState(() => run(bundle.exports, bundleRequire, bundle, launcherFile, dirname(launcherFile), pathToFileURL(launcherFile).href, importModule, bundleHash));
if (typeof bundle.exports.main !== 'function') throw new Error(`${bundleFile} exports no main(): not the panel's bundle`);

/**
 * Whether `launcher` is the one this snapshot's bundle was built with (build/build.mjs writes the
 * bundle's SHA-256 into it). A release replaced since the blob was made starts through its own
 * launcher and code cache instead, in this process: the snapshot's heap is then left unused.
 */
function madeFor(launcher: string | undefined): launcher is string {
  if (!launcher) return false;
  try {
    return fs.readFileSync(launcher, 'latin1').includes(`"${bundleHash}"`);
  } catch {
    return false;
  }
}

startupSnapshot.setDeserializeMainFunction(() => {
  const launcher = process.argv[1];
  if (madeFor(launcher)) {
    void bundle.exports.main!();
    return;
  }
  if (!launcher) {
    console.error('relay-panel: a start from the startup snapshot names the launcher: node --snapshot-blob <blob> <dir>/server.mjs [args]');
    process.exit(1);
  }
  importModule(pathToFileURL(resolve(launcher)).href).catch((error: unknown) => {
    console.error(`relay-panel: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  });
});
