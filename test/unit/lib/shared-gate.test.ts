// The gate between a certificate mode switch and the changes it decides about: changes beside each
// other, a switch alone, and neither one's failure holding the other back.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { SharedGate } from '../../../lib/shared-gate.ts';

function deferred() {
  let resolve!: () => void;
  let reject!: (error: Error) => void;
  const promise = new Promise<void>((res, rej) => ((resolve = res), (reject = rej)));
  return { promise, resolve, reject };
}
const turn = () => new Promise((resolve) => setImmediate(resolve));

const s = suite('shared gate');

s('shared tasks run together; an exclusive one waits for them, and shared ones asked after it wait for it', async () => {
  const gate = new SharedGate();
  const log: string[] = [];
  const a = deferred();
  const b = deferred();
  const sharedA = gate.shared(async () => { log.push('a starts'); await a.promise; log.push('a ends'); });
  const sharedB = gate.shared(async () => { log.push('b starts'); await b.promise; log.push('b ends'); });
  const whole = gate.exclusive(async () => { log.push('switch'); });
  const late = gate.shared(async () => { log.push('late'); });
  await turn();
  assert.equal(log, ['a starts', 'b starts']);
  a.resolve();
  await turn();
  assert.equal(log, ['a starts', 'b starts', 'a ends'], 'the switch still waits for b');
  b.resolve();
  await Promise.all([sharedA, sharedB, whole, late]);
  assert.equal(log, ['a starts', 'b starts', 'a ends', 'b ends', 'switch', 'late']);
});

s('a failed task fails its caller only: the next ones run', async () => {
  const gate = new SharedGate();
  const failing = gate.shared(async () => { throw new Error('nginx refused'); });
  const whole = gate.exclusive(async () => { throw new Error('certbot failed'); });
  const after = gate.shared(async () => 'made');
  const refused = (p: Promise<unknown>) => p.then(() => 'resolved', (e: Error) => e.message);
  assert.is(await refused(failing), 'nginx refused');
  assert.is(await refused(whole), 'certbot failed');
  assert.is(await after, 'made');
  assert.is(await gate.exclusive(async () => 'switched'), 'switched');
});

s.run();
