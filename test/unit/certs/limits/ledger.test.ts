// The issuance ledger: a store collection, pruned past the longest window, kept through backup and restore.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { restoreBetweenRuns } from '../../../../lib/restore-between-runs.ts';
import { callerHeaders, createTestApp } from '../../../../lib/testing.ts';
import { ManualClock } from '../../../helpers/manual-clock.ts';
import { timed } from '../../../helpers/timeout.ts';

const s = suite('certificate limits: the issuance ledger');
const DAY = 24 * 3600_000;

s('each order is one record (names, kind, outcome); records older than 7 days go with the next write or count', async () => {
  const clock = new ManualClock();
  const t = await createTestApp({ clock });
  try {
    await t.completeOnboarding('example.com');
    assert.is((await t.call('POST', '/api/tunnels', { body: { subdomain: 'old', port: 9001 } })).status, 201);
    const [first] = t.services.store.certIssuances.value;
    assert.equal({ ...first, id: 'x' }, { id: 'x', at: new Date(clock.now()).toISOString(), server: t.services.config.value.system.acme.server, names: ['old.example.com'], kind: 'new', outcome: 'issued', failedValidations: [] });
    // jump, not advance: the ledger prunes on a write or a count, not on a timer, and advancing a week
    // ran the panel's 5 s polls and minute tasks 300,000 times (about 2 s of CPU)
    clock.jump(7 * DAY - 1);
    await t.call('GET', '/api/certs/limits');
    await t.services.store.flush();
    assert.is(t.services.store.certIssuances.size, 1, 'kept within the window');
    clock.jump(1);
    assert.is((await t.call('POST', '/api/tunnels', { body: { subdomain: 'new', port: 9002 } })).status, 201);
    assert.equal(t.services.store.certIssuances.value.map((r) => r.names[0]), ['new.example.com']);
    clock.jump(7 * DAY);
    await t.call('GET', '/api/certs/limits');
    await t.services.store.flush();
    assert.is(t.services.store.certIssuances.size, 0, 'pruned by a read of the counts');
  } finally {
    await t.close();
  }
});

s('kept through backup and restore: the restored panel counts the orders the archive holds', timed(60_000, async () => {
  const t = await createTestApp({ durable: true });
  await t.completeOnboarding('example.com');
  for (const [subdomain, port] of [['app', 9001], ['web', 9002]] as const) assert.is((await t.call('POST', '/api/tunnels', { body: { subdomain, port } })).status, 201);
  const download = await t.request('GET', '/api/backup');
  assert.is(download.status, 200);
  const archive = new Uint8Array(await download.arrayBuffer());
  const archived = t.services.store.certIssuances.value.map((r) => r.id);
  const configFile = t.services.config.file;
  let handed: Promise<void> | undefined;
  t.services.restoreRequests.listen((file) => {
    handed = (async () => {
      await t.close({ keep: true });
      await restoreBetweenRuns(configFile, file, { ...process.env, LOG_LEVEL: 'warn' }, process.cwd(), { log: () => {}, error: (line) => assert.unreachable(line) });
    })();
  }, 'The panel restarts');
  try {
    assert.is((await t.call('POST', '/api/tunnels', { body: { subdomain: 'later', port: 9003 } })).status, 201);
    const before = t.services.store.certIssuances.value.map((r) => r.names[0]);
    assert.equal(before, ['app.example.com', 'web.example.com', 'later.example.com']);
    const form = new FormData();
    form.append('archive', new Blob([archive]), 'backup.tar.gz');
    const restore = await t.app.fetch(new Request('http://panel.test/api/backup/restore', { method: 'POST', body: form, headers: callerHeaders('admin') }));
    assert.is(restore.status, 202, await restore.clone().text());
    assert.ok(handed, 'the archive went to the process');
    await handed;
    const again = await createTestApp({ dir: t.dir });
    try {
      // the archive's orders, and not the later one; the sandbox's restore re-renders the certificates it replays, which adds renewals
      const restored = again.services.store.certIssuances.value;
      assert.equal(restored.filter((r) => archived.includes(r.id)).map((r) => r.names[0]), ['app.example.com', 'web.example.com']);
      assert.not.ok(restored.some((r) => r.names[0] === 'later.example.com'));
      assert.ok(restored.every((r) => archived.includes(r.id) || r.kind === 'renewal'), JSON.stringify(restored));
      const counted = (await again.call('GET', '/api/certs/limits')).body.counts.find((c: { limit: string }) => c.limit === 'newPerRegisteredDomain');
      assert.equal([counted.key, counted.count], ['example.com', 2]);
    } finally {
      await again.close();
    }
  } finally {
    await t.close().catch(() => {});
  }
}));

s.run();
