// What the reload watch reads of a running nginx: its master's pid (the pid file nginx is
// configured with), the master's children in /proc, and what nginx appends to its error log.
// In the root helper these are root's reads, so none follows a link or blocks on a FIFO: the pid
// file and the log are opened O_NOFOLLOW|O_NONBLOCK and must be regular files, the pid file root's
// own (nginx's root master writes it); /proc is the kernel's.
import { open, readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { readOwnedText } from '../common/owned-file.ts';
import { NO_FOLLOW_NO_BLOCK, readFromOffset, readOrNull } from '../common/fs.ts';

/** a pid file holds one number and a newline */
const MAX_PID_FILE = 64;
/** at most this much of the log is read per look: a flood of lines cannot make root read without bound */
const MAX_LOG_READ = 256 * 1024;

/**
 * The pid of nginx's running master, or null when it cannot be told (no pid file, one root did not
 * write, a pid that is no longer an nginx master): the reload is then watched in the log alone.
 */
export async function nginxMasterPid(pidFile: string, procDir = '/proc'): Promise<number | null> {
  let text: string | null;
  try {
    // as another user (a test's nginx, a panel run without the helper) there is no boundary to keep
    text = process.geteuid?.() === 0 ? await readOwnedText(pidFile, { owners: [0], maxBytes: MAX_PID_FILE }) : await readOrNull(pidFile);
  } catch {
    // refused (a link, not root's), unreadable: no master to watch
    return null;
  }
  const pid = Number(text?.trim());
  if (!Number.isSafeInteger(pid) || pid <= 1) return null;
  // a stale pid file may name a pid another program has since: nginx titles its master so
  const cmdline = await readFile(join(procDir, String(pid), 'cmdline'), 'utf8').catch(() => '');
  return cmdline.startsWith('nginx: master process') ? pid : null;
}

/**
 * The pids of the process's children, or null when the process is gone. The kernel's `children`
 * list of the master's task is read first: under the root helper's ProtectProc=invisible the
 * workers (nginx's user) are hidden from root without CAP_SYS_PTRACE, but the master (root's) and
 * its list are not. A kernel without that list: every process's stat, by its parent.
 */
export async function childPids(pid: number, procDir = '/proc'): Promise<number[] | null> {
  const list = await readFile(join(procDir, String(pid), 'task', String(pid), 'children'), 'utf8').catch((e: NodeJS.ErrnoException) => e);
  if (typeof list === 'string') return pidsOf(list);
  if ((await readFile(join(procDir, String(pid), 'stat'), 'utf8').catch(() => null)) === null) return null;
  const found: number[] = [];
  for (const entry of await readdir(procDir)) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = await readFile(join(procDir, entry, 'stat'), 'utf8').catch(() => null);
    if (stat !== null && parentOf(stat) === pid) found.push(Number(entry));
  }
  return found;
}

/**
 * Whether an nginx worker has been told to quit: nginx titles it "worker process is shutting down"
 * as it closes its listening sockets. null: its title cannot be read (hidden from this user, or gone).
 */
export async function workerShuttingDown(pid: number, procDir = '/proc'): Promise<boolean | null> {
  const cmdline = await readFile(join(procDir, String(pid), 'cmdline'), 'utf8').catch(() => null);
  if (cmdline === null || cmdline === '') return null;
  return cmdline.includes('is shutting down');
}

function pidsOf(text: string): number[] {
  return text.split(/\s+/).filter((w) => /^\d+$/.test(w)).map(Number);
}

/** The parent pid in a /proc/<pid>/stat line: the 2nd field after the command name, which may hold spaces and ')'. */
export function parentOf(stat: string): number | null {
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ppid = Number(fields[1]);
  return Number.isSafeInteger(ppid) ? ppid : null;
}

/** The error log's size now (where a watch starts reading), 0 when it is missing. */
export async function logSize(path: string): Promise<number> {
  try {
    const handle = await open(path, NO_FOLLOW_NO_BLOCK);
    try {
      const st = await handle.stat();
      return st.isFile() ? st.size : 0;
    } finally {
      await handle.close();
    }
  } catch {
    return 0;
  }
}

/**
 * The whole lines appended to the log since `from`, one look at a time; a file shorter than what
 * was read (rotated, truncated) is read again from its start. Missing, a link or not a regular
 * file: nothing.
 */
export function logTail(path: string, from: number): { lines(): Promise<string[]> } {
  let offset = from;
  let partial = '';
  return {
    async lines() {
      const read = await readFromOffset(path, offset, { rootSafe: true, maxBytes: MAX_LOG_READ }).catch(() => null);
      if (read === null) return [];
      if (read.from < offset) partial = '';
      offset = read.size;
      const lines = (partial + read.text).split('\n');
      partial = lines.pop() ?? '';
      return lines;
    },
  };
}
