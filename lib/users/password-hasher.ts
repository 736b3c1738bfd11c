// bcrypt at cost 12 takes about a second of CPU; on the main thread (even bcryptjs's chunked async
// form) it would hold every other request for up to 100 ms at a time. Hashes run on one worker
// thread instead, started on first use and unreferenced while idle, so it never holds the process open.
import { Worker } from 'node:worker_threads';
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
      if (pending.size === 0) w.unref();
    });
    w.on('error', failAll);
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
        w.ref();
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
