// Group commit of vhost changes (lib/system/proxy/group-commit.ts): changes that arrive while a
// batch runs share the next batch's nginx -t and reload; one bad change fails only its caller.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { groupCommit } from '../../../lib/system/proxy/group-commit.ts';
import { HelperProxy } from '../../../lib/system/proxy/helper-proxy.ts';
import { VhostStore } from '../../../lib/system/proxy/vhost-store.ts';
import { SystemError, type VhostChange } from '../../../lib/system/types.ts';

const s = suite('group commit of vhost changes');
const change = (name: string): VhostChange => ({ op: 'disable', name });
const names = (changes: VhostChange[]) => changes.map((c) => (c as { name: string }).name);
const tick = () => new Promise((r) => setTimeout(r, 5));

/** A group commit whose batches take a moment and are recorded by name; a batch naming `bad` fails. */
function recorded(max: number): { apply: (changes: VhostChange[]) => Promise<void>; batches: string[][] } {
  const batches: string[][] = [];
  const apply = groupCommit(async (changes) => {
    batches.push(names(changes));
    await tick();
    if (names(changes).includes('bad')) throw new SystemError('nginx configuration test failed: bad');
  }, max);
  return { apply, batches };
}

s('a lone change goes at once; those that arrive meanwhile go together in the next batch', async () => {
  const { apply, batches } = recorded(100);
  const first = apply([change('a')]);
  assert.equal(batches, [['a']], 'not held back for company');
  const rest = [apply([change('b')]), apply([change('c'), change('d')]), apply([change('e')])];
  await Promise.all([first, ...rest]);
  assert.equal(batches, [['a'], ['b', 'c', 'd', 'e']]);
});

s('a joined batch that fails: each caller\'s changes alone, so only the bad one fails', async () => {
  const { apply, batches } = recorded(100);
  const first = apply([change('a')]);
  const outcomes = await Promise.allSettled([first, apply([change('b')]), apply([change('bad')]), apply([change('c')])]);
  assert.equal(outcomes.map((o) => o.status), ['fulfilled', 'fulfilled', 'rejected', 'fulfilled']);
  assert.is(((outcomes[2] as PromiseRejectedResult).reason as Error).message, 'nginx configuration test failed: bad');
  assert.equal(batches, [['a'], ['b', 'bad', 'c'], ['b'], ['bad'], ['c']]);
});

s('at most `max` changes joined; a caller\'s own list is never split', async () => {
  const { apply, batches } = recorded(3);
  await Promise.all([apply([change('a')]), apply([change('b'), change('c')]), apply([change('d'), change('e')]), apply([change('f'), change('g'), change('h'), change('i')])]);
  assert.equal(batches, [['a'], ['b', 'c'], ['d', 'e'], ['f', 'g', 'h', 'i']]);
});

s('VhostStore: ten concurrent changes cost two tests and reloads, not ten', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'relay-group-'));
  try {
    let tests = 0;
    let reloads = 0;
    const store = new VhostStore({
      availableDir: join(dir, 'available'),
      enabledDir: join(dir, 'enabled'),
      routesDir: join(dir, 'routes'),
      render: async (spec) => `server { server_name ${(spec as { fqdn: string }).fqdn}; }\n`,
      test: async () => void (tests++, await tick()),
      reload: async () => void (reloads++, await tick()),
    });
    const puts = Array.from({ length: 10 }, (_, i) => store.apply([{ op: 'put', spec: { kind: 'app', fqdn: `t${i}.example.test`, port: 20000 + i }, enabled: true }]));
    await Promise.all(puts);
    assert.equal([tests, reloads], [2, 2]);
    for (let i = 0; i < 10; i++) assert.equal(await store.state(`relay-app-t${i}.example.test.conf`), { name: `relay-app-t${i}.example.test.conf`, written: true, enabled: true });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

s('HelperProxy: concurrent changes reach the root helper as one request after the first', async () => {
  const sent: number[] = [];
  const proxy = new HelperProxy({ availableDir: '/nonexistent/a', enabledDir: '/nonexistent/e', routesDir: '/nonexistent/r' }, {
    send: async (changes) => void (sent.push(changes.length), await tick()),
    refresh: async () => [],
    prepare: async () => undefined,
    reload: async () => undefined,
  });
  await Promise.all(Array.from({ length: 10 }, (_, i) => proxy.apply([{ op: 'disable', name: `relay-app-t${i}.example.test.conf` }])));
  assert.equal(sent, [1, 9]);
});

s.run();
