// Types of lib/rehearsal-names.mjs (plain JS, so that the build scripts can import it too).
export declare const REHEARSE_COMMAND: string;
export declare function rehearsalCacheFile(dir: string): string;
export declare const CODE_CACHE_TAKEN: string;
