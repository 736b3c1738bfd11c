// bcrypt at cost 12 takes about a second of CPU; on the main thread (even bcryptjs's chunked async
// form) it would hold every other request for up to 100 ms at a time. Hashes run on one worker
// thread instead. The thread is started when a hash is asked for and stopped once none is left:
// starting it costs a few ms next to a second of hashing, and an idle panel keeps no thread's memory.
import type { Worker } from 'node:worker_threads';
import { createRequire } from 'node:module';
import { BCRYPT_COST } from '../auth/passwords.ts';

/** Set by build/build.mjs: the worker bundled as a script, since the one-file bundle has no hash-worker.mjs beside it. */
declare const RELAY_HASH_WORKER_SOURCE: string | undefined;

interface Pending {
  resolve(hash: string): void;
  reject(error: Error): void;
}

export interface PasswordHasher {
  hash(password: string): Promise<string>;
  close(): Promise<void>;
}

function startWorker(): Worker {
  // required here, not imported: worker_threads would otherwise load on every start (cold start); the
  // require made here too, since node:module is not loaded while a startup snapshot is built (build/snapshot.mjs)
  const { Worker } = createRequire(import.meta.url)('node:worker_threads') as typeof import('node:worker_threads');
  return typeof RELAY_HASH_WORKER_SOURCE === 'string'
    ? new Worker(RELAY_HASH_WORKER_SOURCE, { eval: true })
    : new Worker(new URL('./hash-worker.mjs', import.meta.url));
}

export function createPasswordHasher(cost = BCRYPT_COST): PasswordHasher {
  let worker: Worker | null = null;
  let nextId = 0;
  const pending = new Map<number, Pending>();

  const failAll = (error: Error) => {
    for (const p of pending.values()) p.reject(error);
    pending.clear();
    worker = null;
  };
  const ensureWorker = (): Worker => {
    if (worker) return worker;
    const w = startWorker();
    w.on('message', ({ id, hash, error }: { id: number; hash?: string; error?: string }) => {
      const p = pending.get(id);
      pending.delete(id);
      if (hash) p?.resolve(hash);
      else p?.reject(new Error(error ?? 'bcrypt worker gave no hash'));
      if (pending.size === 0 && worker === w) {
        worker = null;
        void w.terminate();
      }
    });
    w.on('error', (error) => {
      if (worker === w) failAll(error);
    });
    w.on('exit', (code) => {
      if (worker === w) failAll(new Error(`bcrypt worker exited with code ${code}`));
    });
    worker = w;
    return w;
  };

  return {
    hash(password) {
      return new Promise<string>((resolve, reject) => {
        const w = ensureWorker();
        const id = nextId++;
        pending.set(id, { resolve, reject });
        w.postMessage({ id, password, cost });
      });
    },
    async close() {
      const w = worker;
      worker = null;
      if (w) await w.terminate();
      failAll(new Error('password hasher closed'));
    },
  };
}
