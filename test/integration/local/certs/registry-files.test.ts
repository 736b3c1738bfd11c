// The registry files (agents.json, revocations.json) edited by hand while the panel runs. Not a unit
// test: the panel sees an edit through a file watch (inotify), and the tests poll for it in real time.
import { writeFile } from 'node:fs/promises';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { reloadRegistryFile } from '../../../../lib/auth/registry-files.ts';
import { createLogger, type LogEntry } from '../../../../lib/log.ts';
import { createTestApp, type TestApp } from '../../../../lib/testing.ts';
import { timed } from '../../../helpers/timeout.ts';

const s = suite('the live registry: agents.json and revocations.json edited by hand');
let t: TestApp;

s.before.each(async () => {
  // on disk: a store kept in memory has no files to edit, and watches none
  t = await createTestApp({ durable: true });
  await t.completeOnboarding();
  await t.addAgent('laptop-1', ['tunnels:read']);
  await t.services.store.flush();
});
s.after.each(() => t.close());

const tunnelsAs = (label: string, serial = t.agentSerial(label)) => t.call('GET', '/api/tunnels', { as: { agent: label, serial } });
const record = (label: string, capabilities: string[]) => ({ label, serial: t.agentSerial(label), capabilities, allowedSites: [], createdAt: new Date().toISOString(), expiresAt: null, revokedAt: null, enrollmentMethod: 'p12' as const });

async function until(what: string, check: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 1000; i++) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 20));
  }
  assert.unreachable(`${what} did not happen within 20 s`);
}

s('an edit of agents.json applies to the next request, with no restart', timed(30_000, async () => {
  assert.is((await tunnelsAs('laptop-2')).status, 403);
  await writeFile(t.services.store.agents.file, JSON.stringify([record('laptop-1', []), record('laptop-2', ['tunnels:read'])]));
  await until('laptop-2 admitted', async () => (await tunnelsAs('laptop-2')).status === 200);
  assert.is((await tunnelsAs('laptop-1')).status, 403);
}));

s('a record written before enrollmentMethod existed loads, and is listed, as p12', timed(30_000, async () => {
  const { enrollmentMethod: _, ...older } = record('laptop-2', ['tunnels:read']);
  await writeFile(t.services.store.agents.file, JSON.stringify([older]));
  await until('laptop-2 admitted', async () => (await tunnelsAs('laptop-2')).status === 200);
  assert.equal((await t.call('GET', '/api/certs/agent')).body.agents.map((a: { enrollmentMethod: string }) => a.enrollmentMethod), ['p12']);
}));

s('an edit of revocations.json applies to the next request', timed(30_000, async () => {
  await writeFile(t.services.store.revocations.file, JSON.stringify([{ serial: t.agentSerial('laptop-1'), label: 'laptop-1', revokedAt: new Date().toISOString() }]));
  await until('laptop-1 revoked', async () => (await tunnelsAs('laptop-1')).body.error === 'Certificate has been revoked');
}));

s('a corrupt file is reported naming the file, and the registry keeps what it had', async () => {
  const lines: LogEntry[] = [];
  const log = createLogger({ write: () => {} });
  log.subscribe((e) => lines.push(e));
  for (const text of ['[{"label": "laptop-1",', JSON.stringify([{ label: 'laptop-1' }])]) {
    await writeFile(t.services.store.agents.file, text);
    assert.is(await reloadRegistryFile(t.services.store, 'agents', log), 'rejected');
    assert.is((await tunnelsAs('laptop-1')).status, 200, 'still served from memory');
  }
  assert.is(lines.length, 2);
  for (const line of lines) {
    assert.is(line.level, 'error');
    assert.match(line.message, `Cannot load ${t.services.store.agents.file}`);
  }
  assert.match(lines[0]!.message, 'not valid JSON');
  assert.match(lines[1]!.message, 'serial');
});

s('the panel\'s own writes are not mistaken for edits', async () => {
  await t.addAgent('laptop-2', ['tunnels:read']);
  assert.is(await reloadRegistryFile(t.services.store, 'agents', t.services.log), 'unchanged');
  assert.is(t.services.store.agents.value.length, 2);
});

s('reloads racing the panel\'s own updates never bring back an older file', async () => {
  const outcomes: Promise<string>[] = [];
  const updates: Promise<void>[] = [];
  for (let i = 0; i < 40; i++) {
    updates.push(t.services.store.agents.update((agents) => void agents.push(record(`racer-${i}`, []))));
    outcomes.push(reloadRegistryFile(t.services.store, 'agents', t.services.log));
    await new Promise((r) => setImmediate(r));
  }
  await Promise.all(updates);
  assert.equal([...new Set(await Promise.all(outcomes))], ['unchanged']);
  assert.is(t.services.store.agents.value.length, 41);
});

s.run();
