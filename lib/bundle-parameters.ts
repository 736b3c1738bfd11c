// How the panel's CommonJS bundle (build/build.mjs) is called: by the code-cache launcher
// (lib/code-cache.ts) and by the startup snapshot's builder (lib/snapshot-entry.ts) alike.

/**
 * Node's own CommonJS wrapper parameters, plus the bundle's `import.meta.url` (build/build.mjs),
 * the launcher's `import()` (lib/import-module.ts) and the bundle's own SHA-256 (lib/code-identity.ts).
 */
export const BUNDLE_PARAMETERS = ['exports', 'require', 'module', '__filename', '__dirname', 'RELAY_IMPORT_META_URL', 'RELAY_IMPORT', 'RELAY_BUNDLE_SHA256'] as const;

export type BundleFunction = (
  exports: object,
  require: NodeJS.Require | ((id: string) => unknown),
  module: { exports: object },
  filename: string,
  dirname: string,
  importMetaUrl: string,
  importModule: (specifier: string) => Promise<unknown>,
  bundleSha256: string,
) => void;

/** The bundle `source` (a CommonJS body) as the text of a function of BUNDLE_PARAMETERS. */
export const wrapBundle = (source: string): string =>
  // on the first line, so the bundle's line numbers (and its source map) stay as they are
  `(function (${BUNDLE_PARAMETERS.join(', ')}) {"use strict";${source}\n})`;
