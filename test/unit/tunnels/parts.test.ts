import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { TunnelRecord } from '../../../lib/state/schemas.ts';
import { KeyedLock } from '../../../lib/keyed-lock.ts';
import { AllowedPortsSync } from '../../../lib/tunnels/allowed-ports.ts';
import { chiselArgs, clientTunnels } from '../../../lib/tunnels/client-args.ts';
import { TunnelReservations } from '../../../lib/tunnels/reservations.ts';
import { deferred } from '../../helpers/deferred.ts';
import { tunnelApp } from './helpers.ts';

const s = suite('tunnels: parts');

const record = (id: string, port: number, enabled = true): TunnelRecord => ({
  id, subdomain: id, fqdn: `${id}.example.test`, port, description: '', enabled, createdAt: new Date(port).toISOString(),
});

s('AllowedPortsSync: pending states override records; creates in flight are included', () => {
  const records = [record('a', 2000), record('b', 2001, false), record('c', 2002)];
  const sync = new AllowedPortsSync(() => records, { setAllowedPorts: async () => {} });
  assert.equal(sync.desiredPorts(), [2000, 2002]);
  sync.setPending('a', { port: 2000, enabled: false });
  sync.setPending('b', { port: 2001, enabled: true });
  sync.setPending('new', { port: 1500, enabled: true });
  assert.equal(sync.desiredPorts(), [1500, 2001, 2002]);
  sync.clearPending('a');
  sync.clearPending('b');
  sync.clearPending('new');
  assert.equal(sync.desiredPorts(), [2000, 2002]);
});

s('AllowedPortsSync: writes never overlap; requests during a write share one follow-up write with the latest state', async () => {
  const records: TunnelRecord[] = [];
  const writes: number[][] = [];
  let active = 0;
  const first = deferred();
  const sync = new AllowedPortsSync(() => records, {
    async setAllowedPorts(ports) {
      assert.is(active++, 0, 'one write at a time');
      if (writes.length === 0) await first.promise;
      writes.push(ports);
      active--;
    },
  });
  const running = sync.sync();
  while (active === 0) await new Promise((r) => setImmediate(r)); // the first write has read the state
  records.push(record('a', 2000));
  const followers = [sync.sync(), sync.sync()];
  records.push(record('b', 2001));
  followers.push(sync.sync());
  first.resolve();
  await Promise.all([running, ...followers]);
  assert.equal(writes, [[], [2000, 2001]]);
});

s('AllowedPortsSync: a failed write fails its callers only; the next request writes again', async () => {
  let fail = true;
  const writes: number[][] = [];
  const sync = new AllowedPortsSync(() => [record('a', 2000)], {
    async setAllowedPorts(ports) {
      if (fail) throw new Error('disk full');
      writes.push(ports);
    },
  });
  await sync.sync().then(() => assert.unreachable(), (e: Error) => assert.is(e.message, 'disk full'));
  fail = false;
  await sync.sync();
  assert.equal(writes, [[2000]]);
});

s('KeyedLock: same key in order, other keys concurrently, a failure does not block the next task', async () => {
  const lock = new KeyedLock();
  const log: string[] = [];
  const held = deferred();
  const a1 = lock.run('a', async () => {
    await held.promise;
    log.push('a1');
    throw new Error('a1 failed');
  });
  const a2 = lock.run('a', async () => void log.push('a2'));
  await lock.run('b', async () => void log.push('b1'));
  held.resolve();
  await a1.catch(() => undefined);
  await a2;
  assert.equal(log, ['b1', 'a1', 'a2']);
});

s('TunnelReservations: claim and idempotent release', () => {
  const r = new TunnelReservations();
  const release = r.claim('app', 8080);
  assert.ok(r.hasSubdomain('app') && r.hasPort(8080));
  release();
  const again = r.claim('app', 8080);
  release(); // a stale release must not drop the new claim
  assert.ok(r.hasSubdomain('app') && r.hasPort(8080));
  again();
  assert.not.ok(r.hasSubdomain('app') || r.hasPort(8080));
});

s('chiselArgs: exactly client, --tls-skip-verify, the server URL, then one R: remote per enabled tunnel by port', () => {
  const tunnels = clientTunnels([record('z', 9000), record('off', 8000, false), record('a', 3000)]);
  assert.equal(chiselArgs('example.test', tunnels), [
    'client', '--tls-skip-verify', 'https://tunnel.example.test:443', 'R:127.0.0.1:3000:127.0.0.1:3000', 'R:127.0.0.1:9000:127.0.0.1:9000',
  ]);
});

s('GET /api/tunnels with 200 tunnels answers the one cached string until the next change', async () => {
  const t = await tunnelApp();
  try {
    await t.services.store.tunnels.update((list) => {
      for (let i = 0; i < 200; i++) list.push({ ...record(`t${i}`, 2000 + i), id: crypto.randomUUID() });
    });
    const first = t.services.tunnels.listJson();
    assert.is(t.services.tunnels.listJson(), first);
    const { body } = await t.call('GET', '/api/tunnels');
    assert.is(body.tunnels.length, 200);
    assert.is(body.tunnels[0].subdomain, 't199', 'newest first');
  } finally {
    await t.close();
  }
});

s('GET /api/tunnels lists newest first; records created in the same millisecond too', async () => {
  const t = await tunnelApp();
  try {
    assert.equal((await t.call('GET', '/api/tunnels')).body, { tunnels: [] });
    const at = (month: number) => `2026-0${month}-01T00:00:00.000Z`;
    await t.services.store.tunnels.update((list) => {
      for (const [name, month] of [['old', 1], ['first', 2], ['newest', 3], ['second', 2], ['third', 2]] as const) {
        list.push({ ...record(name, 2000 + list.length), id: crypto.randomUUID(), createdAt: at(month) });
      }
    });
    const { body } = await t.call('GET', '/api/tunnels');
    assert.equal(body.tunnels.map((x: TunnelRecord) => x.subdomain), ['newest', 'third', 'second', 'first', 'old']);
  } finally {
    await t.close();
  }
});

s('repairHost repairs an authfile that drifted from the records', async () => {
  const t = await tunnelApp();
  try {
    await t.call('POST', '/api/tunnels', { body: { subdomain: 'app', port: 8080 } });
    await t.services.system.tunnelServer.setAllowedPorts([8080, 9999]);
    assert.equal((await t.services.tunnels.repairHost()).failures, []);
    assert.equal(await t.services.system.tunnelServer.allowedPorts(), [8080]);
  } finally {
    await t.close();
  }
});

s.run();
