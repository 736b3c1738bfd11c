export declare const TOOLS_DIR: string;
export declare const CACHE_DIR: string;
/** What the cache must hold once fetched, relative to it. */
export declare const FETCHED: Record<'bun' | 'deno' | 'workerd' | 'miniflare', string>;
/** The pinned versions of the manifest's dependencies; a range, or a runtime not pinned, throws. */
export declare function pinnedVersions(manifest: { dependencies?: Record<string, string> }): Record<string, string>;
export interface EnsureOptions {
  toolsDir?: string;
  cacheDir?: string;
  /** Installs the lockfile in the given directory (default: npm ci). */
  install?: (dir: string) => Promise<void>;
  log?: (line: string) => void;
}
/** Makes sure the cache holds what the lockfile pins, fetching it unless already stamped. */
export declare function ensureRuntimes(options?: EnsureOptions): Promise<{ dir: string; fetched: boolean }>;
