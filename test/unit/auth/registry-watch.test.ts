// A store kept in memory (a test's kit) has no registry files to edit by hand: its panel watches
// no directory for them, where each kit held an inotify watch until it closed. A store on disk
// watches (test/integration/local/certs/registry-files.test.ts applies the edits).
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createTestApp } from '../../../lib/testing.ts';
import { eventually } from '../../helpers/service-logs.ts';

const s = suite('registry files: watched only on disk');
const watches = () => process.getActiveResourcesInfo().filter((kind) => kind === 'FSEventWrap').length;

s('a kit in memory adds no file watch; one on disk adds one, and closes it', async () => {
  const before = watches();
  const memory = await createTestApp();
  try {
    assert.is(watches(), before);
  } finally {
    await memory.close();
  }
  const disk = await createTestApp({ durable: true });
  try {
    assert.is(watches(), before + 1);
  } finally {
    await disk.close();
  }
  // a closed watcher's handle is released a few turns of the loop later
  await eventually('the disk kit\'s watch released', () => watches() === before);
});

s.run();
