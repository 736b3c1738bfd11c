// The code cache's file: the bundle's SHA-256 and a newline, then V8's bytes, and the rule a reader
// trusts it by. Read by the launcher (lib/code-cache.ts) and by the startup snapshot's builder, which
// compiles the bundle with a rehearsal start's cache (lib/snapshot-entry.ts). No module of its own
// is imported: each passes node:fs as it loads it (the launcher requires it, since an ES module
// import of node:fs builds its ESM facade at every start).
export type CacheFs = Pick<typeof import('node:fs'), 'openSync' | 'fstatSync' | 'readFileSync' | 'closeSync'>;

const HEADER_BYTES = 65; // 64 hex digits of SHA-256 and a newline

/**
 * The cache's bytes for the bundle `key`, or undefined. A file others may write is not trusted:
 * V8 runs the bytecode in it as if it came from the bundle, and checks no more than the source's
 * length itself.
 */
export function readCacheFile(fs: CacheFs, file: string, key: string): Buffer | undefined {
  let fd: number;
  try {
    fd = fs.openSync(file, 'r');
  } catch {
    return undefined;
  }
  try {
    const stat = fs.fstatSync(fd);
    const owner = process.getuid?.();
    if ((stat.mode & 0o022) !== 0 || (owner !== undefined && stat.uid !== owner && stat.uid !== 0)) return undefined;
    const bytes = fs.readFileSync(fd);
    if (bytes.length <= HEADER_BYTES || bytes.toString('latin1', 0, HEADER_BYTES) !== `${key}\n`) return undefined;
    return bytes.subarray(HEADER_BYTES);
  } finally {
    fs.closeSync(fd);
  }
}

/** What a cache file holds for the bundle `key`. */
export const cacheFileBytes = (key: string, data: Buffer): Buffer => Buffer.concat([Buffer.from(`${key}\n`, 'latin1'), data]);
