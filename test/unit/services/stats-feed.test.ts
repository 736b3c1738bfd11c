import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { StatsFeed } from '../../../lib/service-control/stats-feed.ts';
import type { SystemStats } from '../../../lib/system/index.ts';

const s = suite('stats feed');

const sample = (usage: number): SystemStats => ({
  cpu: { usage, cores: 2 },
  memory: { total: 8, used: 3, free: 5 },
  disk: { total: 100, used: 40, free: 60 },
  uptime: 1234,
});

s('serializes once per measurement: the same snapshot gives the same bytes, a new one new bytes', async () => {
  let current = sample(12.5);
  const feed = new StatsFeed({ snapshot: async () => current });
  const a = await feed.json();
  assert.is(await feed.json(), a, 'no second stringify while the adapter keeps its measurement');
  assert.equal(JSON.parse(Buffer.from(a).toString()), current);
  current = sample(80);
  const b = await feed.json();
  assert.is.not(b, a);
  assert.is(JSON.parse(Buffer.from(b).toString()).cpu.usage, 80);
});

s.run();
