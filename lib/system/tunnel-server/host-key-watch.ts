// The tunnel server's key fingerprint from memory: agent-config is asked for by every agent, and a
// stat of the key file per request cost 1.6× the CPU of answering from cached bytes. The key's
// directory is watched instead; any event there (the key written, renamed into place by a restore,
// the directory itself going) drops the remembered answer, and the next caller reads the file again.
import { watch as fsWatch, type FSWatcher } from 'node:fs';
import { hostKeyFingerprint } from './host-key.ts';

export interface HostKeyWatchDeps {
  /** Reads the fingerprint as the file is now (a stat, and a parse when the file changed). */
  read: () => Promise<string | null>;
  watch: (dir: string, onEvent: () => void) => FSWatcher;
}

const watchDirectory = (dir: string, onEvent: () => void): FSWatcher =>
  // not persistent: a watch never keeps a stopping panel alive
  fsWatch(dir, { persistent: false }, onEvent);

/**
 * The fingerprint of the key in `dir` (null when there is none), read once per change of the
 * directory. The watch is armed before the read, so a change during the read is seen by the next
 * caller; it is dropped at its first event and armed again by the next read (a directory replaced
 * whole, as a restore may, is then watched anew). A watch that cannot be armed or that errs
 * (no inotify watches left, no directory yet) leaves every call reading the file, as before.
 */
export function watchedHostKeyFingerprint(dir: string, deps: Partial<HostKeyWatchDeps> = {}): () => Promise<string | null> {
  const read = deps.read ?? hostKeyFingerprint(dir);
  const watch = deps.watch ?? watchDirectory;
  let watcher: FSWatcher | null = null;
  let remembered: Promise<string | null> | null = null;
  const forget = () => {
    watcher?.close();
    watcher = null;
    remembered = null;
  };
  const arm = (): FSWatcher | null => {
    try {
      const w = watch(dir, forget);
      w.on('error', forget);
      return w;
    } catch {
      return null;
    }
  };
  return () => {
    if (remembered) return remembered;
    watcher = arm();
    const answer = read();
    if (watcher === null) return answer;
    remembered = answer;
    // neither a failed read nor a missing key is remembered: until there is a key, every caller
    // looks again, so one put back is served at once
    answer.then(
      (fingerprint) => void (fingerprint === null && remembered === answer && forget()),
      () => void (remembered === answer && forget()),
    );
    return answer;
  };
}
