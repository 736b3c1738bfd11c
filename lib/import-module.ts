/** Passed by lib/launcher.ts to the bundle it runs (build/build.mjs); undefined when the sources run as they are. */
declare const RELAY_IMPORT: ((specifier: string) => Promise<unknown>) | undefined;

/**
 * `import()` of an ES module outside the bundle (a plugin). The launcher runs the bundle as a V8
 * script, where Node 20 loses the script's import() once the script comes from the code cache
 * ("A dynamic import callback was not specified"), so it hands over its own.
 */
export function importModule(specifier: string): Promise<unknown> {
  return typeof RELAY_IMPORT === 'function' ? RELAY_IMPORT(specifier) : import(specifier);
}
