// Types of lib/startup-snapshot.mjs (plain JS, so that the build scripts can import it too).
export declare const STAT_FORMAT: string;
export declare const LAUNCHER_NAME: string;
export declare function bundleOf(launcher: string): string;
export declare function snapshotFiles(launcher: string): { dir: string; entry: string; blob: string; record: string; startScript: string };
export declare function statArgs(node: string, blob: string): string[];
export declare function recordText(statOutput: string, flags: readonly string[]): string;
export declare function makeSnapshot(options: {
  launcher: string;
  node: string;
  flags: readonly string[];
  run: (file: string, args: string[]) => Promise<{ stdout: string }>;
  stat?: string;
  blob?: string;
}): Promise<{ blob: string; record: string; /** 'taken', or why the blob was built without the rehearsal's code cache */ codeCache: string }>;
export declare function startScript(flags: readonly string[]): string;
export declare const CODE_CACHE_TAKEN_INTO_BLOB: 'taken';
export declare function codeCacheNote(codeCache: string): string;
