// The bcrypt worker (see password-hasher.ts). Plain JavaScript: a worker thread does not inherit
// the TypeScript loader of the test runner, and build/build.mjs inlines this file into the bundle.
import { parentPort } from 'node:worker_threads';
import bcrypt from 'bcryptjs';

parentPort.on('message', ({ id, password, cost }) => {
  try {
    // synchronous on purpose: this thread does nothing else, and the sync form is faster
    parentPort.postMessage({ id, hash: bcrypt.hashSync(password, cost) });
  } catch (error) {
    parentPort.postMessage({ id, error: error instanceof Error ? error.message : String(error) });
  }
});
