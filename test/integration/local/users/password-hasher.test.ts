// The hasher's own thread: its subject is a second thread doing seconds of real work while this
// one keeps turning (timed by a real 5 ms timer), so it runs in the local integration lane, not the
// unit pool, where the units hash at cost 4 on the calling thread.
import bcrypt from 'bcryptjs';
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

// cost 10, a quarter of production's 12 (lib/auth/passwords.ts): still a hash of a few hundred ms,
// which on this thread would stop the 5 ms timer for all of it; the cost itself is not the subject
s('the event loop keeps turning while a long (cost-10) hash runs', timed(20_000, async () => {
  const hasher = createPasswordHasher(10);
  try {
    let ticks = 0;
    let longestGap = 0;
    const started = performance.now();
    let last = started;
    const timer = setInterval(() => {
      const now = performance.now();
      longestGap = Math.max(longestGap, now - last);
      last = now;
      ticks++;
    }, 5);
    const hash = await hasher.hash('a-password');
    clearInterval(timer);
    const elapsed = performance.now() - started;
    assert.match(hash, /^\$2b\$10\$/);
    // bcrypt on this thread would let no timer run until it finished (hashSync) or only between
    // its 100 ms slices (bcryptjs's async form); here the 5 ms timer kept firing throughout
    assert.ok(ticks >= elapsed / 20, `timer fired ${ticks} times in ${elapsed.toFixed(0)} ms, longest gap ${longestGap.toFixed(0)} ms`);
  } finally {
    await hasher.close();
  }
}));

s.run();
