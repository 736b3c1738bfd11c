import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { NODE_FLAGS } from '../../../lib/node-flags.ts';
import { SNAPSHOT_STAT_FORMAT } from '../../../lib/install/steps/snapshot.ts';
// @ts-expect-error plain JS build script
import { STAT_FORMAT, startScript } from '../../../build/snapshot.mjs';

// The record beside a startup snapshot is written by the build (a checkout's dist/) or by install (a
// box's release), and compared by the start script: all three must spell it alike, or a box would
// never start from its snapshot (and nothing would say so but the start's time).
const s = suite('the startup snapshot\'s record, written and compared alike');

s('install writes what the start script compares: stat of node and blob in one format, then the flags', () => {
  assert.is(SNAPSHOT_STAT_FORMAT, STAT_FORMAT);
  const script = startScript();
  assert.match(script, `stat -L -c '${SNAPSHOT_STAT_FORMAT}' -- "$node" "$blob"`);
  assert.match(script, `\nflags='${NODE_FLAGS.join(' ')}'\n`);
  assert.match(script, '{ read -r made_node && read -r made_blob && read -r made_flags; } < "$blob.made"');
});

s.run();
