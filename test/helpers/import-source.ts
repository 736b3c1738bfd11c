import { pathToFileURL } from 'node:url';

/**
 * Imports a TypeScript source whose path a test works out at run time, the way the test process
 * loads its files (test/helpers/suites.mjs: compiled copies in a unit worker, else the hooks), so it
 * shares their modules; a plain import() outside the runner.
 */
export function importSource(path: string): Promise<unknown> {
  const load = (globalThis as { RELAY_IMPORT_SOURCE?: (path: string) => Promise<unknown> }).RELAY_IMPORT_SOURCE;
  return load ? load(path) : import(pathToFileURL(path).href);
}
