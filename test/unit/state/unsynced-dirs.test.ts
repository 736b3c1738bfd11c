import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { needsSync, skipSyncUnder } from '../../../lib/state/unsynced-dirs.ts';
import { createTestApp } from '../../../lib/testing.ts';

const s = suite('writes that skip their fsync');

s('only under a named directory, and only until it is given back', () => {
  assert.ok(needsSync('/kit/a/file'), 'nothing named: every write syncs');
  const giveBack = skipSyncUnder('/kit/a');
  assert.not.ok(needsSync('/kit/a/file'));
  assert.not.ok(needsSync('/kit/a/data/deeper/file'));
  assert.not.ok(needsSync('/kit/a'), 'the directory itself');
  assert.ok(needsSync('/kit/ab/file'), 'a sibling whose name starts alike');
  assert.ok(needsSync('/kit/file'), 'the parent');
  giveBack();
  assert.ok(needsSync('/kit/a/file'));
});

s('a kit without dir or durable names its own directory; with fsync: true it does not', async () => {
  const kit = await createTestApp();
  const synced = await createTestApp({ fsync: true });
  const durable = await createTestApp({ durable: true });
  try {
    assert.not.ok(needsSync(`${kit.dir}/data/x`));
    assert.ok(needsSync(`${synced.dir}/data/x`));
    assert.ok(needsSync(`${durable.dir}/data/x`));
  } finally {
    await kit.close();
    await synced.close();
    await durable.close();
  }
  assert.ok(needsSync(`${kit.dir}/data/x`), 'closed: named no longer');
});

s.run();
