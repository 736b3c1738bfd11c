// The hasher's own thread: its subject is a second thread doing seconds of real work while this
// one keeps turning, so it runs in the local integration lane, not the unit pool, where the units
// hash at cost 4 on the calling thread.
import bcrypt from 'bcryptjs';
import { Worker } from 'node:worker_threads';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createPasswordHasher } from '../../../../lib/users/password-hasher.ts';
import { timed } from '../../../helpers/timeout.ts';

const s = suite('password hasher: bcrypt on a worker thread');

s('concurrent hashes each verify; the thread is started again after going idle', timed(20_000, async () => {
  const hasher = createPasswordHasher(4);
  try {
    const passwords = ['first-password', 'second-password', 'third-password'];
    const hashes = await Promise.all(passwords.map((p) => hasher.hash(p)));
    for (const [i, hash] of hashes.entries()) {
      assert.match(hash, /^\$2b\$04\$/);
      assert.ok(await bcrypt.compare(passwords[i]!, hash), passwords[i]);
    }
    assert.is(new Set(hashes).size, 3, 'a salt per hash');
    const later = await hasher.hash('after-idle');
    assert.ok(await bcrypt.compare('after-idle', later));
  } finally {
    await hasher.close();
  }
}));

// cost 10, a quarter of production's 12 (lib/auth/passwords.ts): still a hash of a few hundred ms.
// Shown by where it runs, not by how long anything took: the password goes to a worker thread as
// a message, and the hash functions of this thread's bcryptjs default export (which lib/auth calls)
// throw while it runs (the worker loads its own copy). A call through the named exports would miss
// that trap; the posted message is what shows the worker got the password.
s('a long (cost-10) hash runs on the worker: the password is posted to it, and this thread hashes nothing', timed(20_000, async () => {
  const hasher = createPasswordHasher(10);
  const library = bcrypt as unknown as Record<string, unknown>;
  const names = ['hash', 'hashSync', 'genSalt', 'genSaltSync'];
  const real = names.map((name) => library[name]);
  for (const name of names) library[name] = () => { throw new Error(`bcryptjs.${name} called on the main thread`); };
  const posted: unknown[] = [];
  const postMessage = Worker.prototype.postMessage;
  Worker.prototype.postMessage = function (this: Worker, message: unknown, ...rest: unknown[]) {
    posted.push(message);
    return (postMessage as (...args: unknown[]) => void).call(this, message, ...rest);
  };
  try {
    const hash = await hasher.hash('a-password');
    assert.match(hash, /^\$2b\$10\$/);
    assert.equal(posted.map((m) => { const { password, cost } = m as { password: string; cost: number }; return { password, cost }; }), [{ password: 'a-password', cost: 10 }]);
    assert.ok(await bcrypt.compare('a-password', hash), 'the worker\'s hash verifies');
  } finally {
    names.forEach((name, i) => (library[name] = real[i]));
    Worker.prototype.postMessage = postMessage;
    await hasher.close();
  }
}));

s.run();
