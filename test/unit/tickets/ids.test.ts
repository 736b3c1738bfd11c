// Ids come from a pool of random bytes refilled 4 KiB at a time: across refills each id is fresh.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { newInstanceId, newSessionId, newTicketId } from '../../../lib/tickets/ids.ts';

const s = suite('unguessable ids');

s('ticket ids are 64 hex characters, instance and session ids 32; none repeats across pool refills', () => {
  const seen = new Set<string>();
  for (let i = 0; i < 2000; i++) {
    const ids = [newTicketId(), newInstanceId(), newSessionId()];
    assert.match(ids[0]!, /^[0-9a-f]{64}$/);
    assert.match(ids[1]!, /^[0-9a-f]{32}$/);
    assert.match(ids[2]!, /^[0-9a-f]{32}$/);
    for (const id of ids) seen.add(id);
  }
  assert.is(seen.size, 6000, 'every id is new');
});

s('the bytes are not a fixed pattern: each hex digit shows up about equally often', () => {
  const counts = new Map<string, number>();
  for (let i = 0; i < 1000; i++) for (const digit of newTicketId()) counts.set(digit, (counts.get(digit) ?? 0) + 1);
  assert.is(counts.size, 16);
  for (const [digit, count] of counts) assert.ok(count > 3000 && count < 5000, `${digit}: ${count} of 64,000`);
});

s.run();
