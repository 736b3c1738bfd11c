// The sites status feed's cost: nothing without viewers, one answer per distinct view per check.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { CHECK_MS, SitesStatusFeed } from '../../../lib/sites/status-feed.ts';
import type { SiteRecord } from '../../../lib/state/schemas.ts';
import { TrafficMeter } from '../../../lib/traffic/meter.ts';
import type { SiteViewer } from '../../../lib/sites/viewer.ts';
import { createLogger } from '../../../lib/log.ts';
import { ManualClock } from '../../helpers/manual-clock.ts';

const s = suite('sites: status feed');

function setup() {
  const clock = new ManualClock();
  const meter = new TrafficMeter(clock);
  meter.know(new Set(['site:docs.example.test', 'site:blog.example.test']));
  const calls = { version: 0, visibleTo: 0 };
  const version = meter.version.bind(meter);
  meter.version = () => (calls.version++, version());
  const records = ['docs', 'blog'].map((name) => ({ id: name, name, fqdn: `${name}.example.test` }) as SiteRecord);
  const sites = {
    visibleTo(viewer: SiteViewer) {
      calls.visibleTo++;
      return viewer.role === 'admin' ? records : records.filter((r) => viewer.allowedSites.includes(r.name));
    },
  };
  const unchanged = { version: 1 } as never;
  const feed = new SitesStatusFeed(sites, meter, { sites: unchanged, agents: unchanged, revocations: unchanged }, clock, createLogger({ write: (line) => assert.unreachable(line) }));
  feed.start();
  const record = (name: string) => meter.record(`{"v":"site:${name}.example.test","s":200,"in":1,"out":1,"t":0.001}`);
  return { clock, meter, calls, feed, record };
}

s('without viewers a check reads nothing, however much traffic comes', () => {
  const { clock, calls, feed, record } = setup();
  for (let i = 0; i < 10; i++) {
    record('docs');
    clock.advance(CHECK_MS);
  }
  assert.equal(calls, { version: 0, visibleTo: 0 });
  const stop = feed.subscribe(() => ({ role: 'admin' }), () => {}, () => {});
  stop();
  record('docs');
  calls.visibleTo = 0;
  clock.advance(10 * CHECK_MS);
  assert.is(calls.visibleTo, 0, 'nor after the last viewer went');
  feed.close();
});

s('one answer per distinct view per check; a viewer is told only when its answer changed', () => {
  const { clock, calls, feed, record } = setup();
  const told: Record<string, string[]> = { admin1: [], admin2: [], docs1: [], docs2: [], blog: [] };
  const viewers: Record<string, SiteViewer> = {
    admin1: { role: 'admin' }, admin2: { role: 'admin' },
    docs1: { role: 'agent', allowedSites: ['docs'] }, docs2: { role: 'agent', allowedSites: ['docs'] },
    blog: { role: 'agent', allowedSites: ['blog'] },
  };
  for (const [name, viewer] of Object.entries(viewers)) feed.subscribe(() => viewer, (json) => told[name]!.push(json), () => assert.unreachable());
  calls.visibleTo = 0;
  record('docs');
  clock.advance(CHECK_MS);
  assert.is(calls.visibleTo, 3, 'the admins\', docs\' and blog\'s views');
  assert.equal(Object.fromEntries(Object.entries(told).map(([name, list]) => [name, list.length])), { admin1: 2, admin2: 2, docs1: 2, docs2: 2, blog: 1 });
  assert.equal(JSON.parse(told.docs1![1]!).sites.map((x: { name: string }) => x.name), ['docs']);
  clock.advance(CHECK_MS);
  assert.is(calls.visibleTo, 3, 'nothing moved: nothing answered again');
  feed.close();
});

s('a viewer whose access is gone is refused and forgotten', () => {
  const { clock, feed, record } = setup();
  let allowed = true;
  let refused = 0;
  const told: string[] = [];
  feed.subscribe(() => (allowed ? { role: 'agent', allowedSites: ['docs'] } : null), (json) => told.push(json), () => refused++);
  allowed = false;
  record('docs');
  clock.advance(CHECK_MS);
  record('docs');
  clock.advance(CHECK_MS);
  assert.equal([told.length, refused], [1, 1]);
  feed.subscribe(() => null, () => assert.unreachable('nothing sent'), () => refused++);
  assert.is(refused, 2, 'refused at once');
  feed.close();
});

s.run();
