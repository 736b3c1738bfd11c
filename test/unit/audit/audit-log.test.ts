// The audit log: state-changing requests by route pattern with the caller's identity and outcome,
// registry events from the collections, newest-first reads with filters, and no secret ever on disk.
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { AuditLog, type AuditCursor } from '../../../lib/audit/audit-log.ts';
import { JournalWriter } from '../../../lib/state/journal.ts';
import type { Caller } from '../../../lib/testing.ts';
import { ManualClock } from '../../helpers/manual-clock.ts';
import { userApp, newUser, type UserTestApp } from '../users/support.ts';
import { tmpdir } from 'node:os';

const s = suite('audit log');
let t: UserTestApp;
s.before.each(async () => {
  t = await userApp({ durable: true });
});
s.after.each(() => t.close());

const auditDir = () => join(t.services.store.dataDir, 'audit');
async function onDisk(): Promise<string> {
  await t.services.audit.flush();
  const names = await readdir(auditDir());
  return (await Promise.all(names.map((n) => readFile(join(auditDir(), n), 'utf8')))).join('');
}

s('a sequence of actions gives its entries, newest first, by route pattern and identity', async () => {
  const user = newUser('dana');
  assert.is((await t.call('POST', '/api/users', { body: user })).status, 201);
  const agent = await t.call('POST', '/api/certs/agent', { body: { label: 'laptop-1', capabilities: ['tunnels:read'], allowedSites: [] } });
  assert.is(agent.status, 201);
  await t.call('PATCH', '/api/certs/agent/laptop-1/capabilities', { body: { capabilities: ['tunnels:read', 'system:read'] } });
  const denied = await t.call('DELETE', '/api/users/dana', { as: { agent: 'laptop-1', serial: agent.body.serial } });
  assert.is(denied.status, 403);
  assert.is((await t.call('GET', '/api/users')).status, 200, 'reads are not logged');
  await t.call('DELETE', '/api/certs/agent/laptop-1');

  const { status, body } = await t.call('GET', '/api/audit');
  assert.is(status, 200);
  const requests = body.entries.filter((e: { route?: string }) => e.route);
  assert.equal(
    requests.map((e: any) => [e.method, e.route, e.target, e.status, e.actor.role]),
    [
      ['DELETE', '/api/certs/agent/:label', 'laptop-1', 200, 'admin'],
      ['DELETE', '/api/users/:username', 'dana', 403, 'agent'],
      ['PATCH', '/api/certs/agent/:label/capabilities', 'laptop-1', 200, 'admin'],
      ['POST', '/api/certs/agent', null, 201, 'admin'],
      ['POST', '/api/users', null, 201, 'admin'],
    ],
  );
  const agentCall = requests[1];
  assert.equal(agentCall.actor, { role: 'agent', label: 'laptop-1', serial: agent.body.serial });
  const events = body.entries.filter((e: { event?: string }) => e.event).map((e: any) => `${e.event} ${e.target}`);
  // the revocation writes two collections; their order within the same moment is not fixed
  assert.equal(events.slice(0, 2).sort(), ['agent.revoked laptop-1', `certificate.revoked ${agent.body.serial}`]);
  assert.equal(events.slice(2), ['agent.capabilities laptop-1', 'agent.issued laptop-1']);
  const times = body.entries.map((e: { time: string }) => e.time);
  assert.equal(times, [...times].sort().reverse(), 'newest first');

  const byAgent = await t.call('GET', '/api/audit?actor=laptop-1');
  assert.ok(byAgent.body.entries.length > 0);
  assert.ok(byAgent.body.entries.every((e: any) => e.actor.label === 'laptop-1'));
  assert.is((await t.call('GET', '/api/audit?limit=2')).body.entries.length, 2);
  const future = new Date(Date.now() + 60_000).toISOString();
  assert.equal((await t.call('GET', `/api/audit?since=${future}`)).body.entries, []);
  assert.is((await t.call('GET', '/api/audit?limit=0')).status, 400);
  assert.is((await t.call('GET', '/api/audit', { as: { agent: 'laptop-1', serial: agent.body.serial } })).status, 403);
});

s('no password, token or one-time password is ever written, from bodies or paths', async () => {
  const user = newUser('erin');
  await t.call('POST', '/api/users', { body: user });
  const agent = await t.call('POST', '/api/certs/agent', { body: { label: 'ci', capabilities: [], allowedSites: [] } });
  const invitation = await t.call('POST', '/api/invitations', { body: { username: 'fay', email: 'fay@example.test' } });
  const token = invitation.body.token as string;
  assert.is((await t.call('POST', `/api/invite/${token}/accept`, { as: 'none', body: { password: 'fay-password-secret' } })).status, 200);
  await t.call('POST', '/api/tickets/validate', { as: { agent: 'ci', serial: agent.body.serial }, body: { ticketId: 'abcdef0123456789' } });

  const text = await onDisk();
  for (const secret of [user.password, agent.body.p12Password, token, 'fay-password-secret', 'abcdef0123456789']) {
    assert.ok(secret && !text.includes(secret), `a secret was logged: ${secret}`);
  }
  assert.ok(text.includes('"/api/invite/:token/accept"'), 'the accept is logged by its pattern');
  assert.ok(text.includes('"target":"[redacted]"'));
});

s('WebSocket handshakes are logged with method WS (101 when taken, the refusal otherwise)', async () => {
  const handshake = (as: Caller) =>
    t.app.handle(new Request('http://panel.test/api/services/proxy/logs', { headers: { ...t.headers(as), upgrade: 'websocket' } }), {
      upgrade: { accept: () => {} },
    });
  await handshake('admin');
  await handshake({ agent: 'nobody' });
  const { body } = await t.call('GET', '/api/audit?limit=2');
  assert.equal(body.entries.map((e: any) => [e.method, e.route, e.target, e.status]), [
    ['WS', '/api/services/:name/logs', 'proxy', 403],
    ['WS', '/api/services/:name/logs', 'proxy', 101],
  ]);
});

s('a read-only feed a page opens on every view (tunnel status) is not logged when taken; a refusal is', async () => {
  await t.call('POST', '/api/users', { body: newUser('hal') });
  const handshake = (as: Caller) =>
    t.app.handle(new Request('http://panel.test/api/tunnels/status/live', { headers: { ...t.headers(as), upgrade: 'websocket' } }), {
      upgrade: { accept: () => {} },
    });
  await handshake('admin');
  await handshake('admin');
  await handshake({ agent: 'nobody' });
  const { body } = await t.call('GET', '/api/audit?limit=2');
  assert.equal(body.entries.map((e: any) => [e.method, e.route, e.status]), [
    ['WS', '/api/tunnels/status/live', 403],
    ['POST', '/api/users', 201],
  ]);
});

s('entries survive a restart; files rotate by size and only `keep` rotated files stay', async () => {
  await t.call('POST', '/api/users', { body: newUser('gus') });
  const dir = t.dir;
  await t.close({ keep: true });
  t = await userApp({ dir });
  const { body } = await t.call('GET', '/api/audit');
  assert.ok(body.entries.some((e: any) => e.route === '/api/users' && e.status === 201), 'the entry from before the restart');

  const scratch = await mkdtemp(join(tmpdir(), 'audit-'));
  try {
    // no commit window: each flush is one file append, as rotation needs here, without 40 waits of 20 ms (the window has a test of its own)
    const log = new AuditLog({ dir: scratch, clock: new ManualClock(0), rotateBytes: 200, keep: 2, commitWindowMs: 0 });
    for (let i = 0; i < 40; i++) {
      log.record({ event: 'test', target: `t${i}` });
      await log.flush();
    }
    const files = (await readdir(scratch)).length;
    assert.ok(files >= 2 && files <= 3, `two rotated files and at most the current one (${files})`);
    const entries = await log.read({ limit: 1000 });
    assert.is(entries[0]!.target, 't39');
    assert.ok(entries.length < 40 && entries.length >= 2, `older files were removed (${entries.length} left)`);
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
});

s('entries recorded within the commit window share one synchronized write; flush waits for them', async () => {
  const scratch = await mkdtemp(join(tmpdir(), 'audit-'));
  // counted, not timed: a loaded machine may close the window before any look at the file
  const append = JournalWriter.prototype.append;
  const batches: string[] = [];
  JournalWriter.prototype.append = function (this: JournalWriter, text: string) {
    batches.push(text);
    return append.call(this, text);
  };
  try {
    const log = new AuditLog({ dir: scratch, clock: new ManualClock(0), commitWindowMs: 1000 });
    // the file open first, so that the write does not wait for it instead of the window
    log.record({ event: 'test', target: 'first' });
    await log.flush();
    batches.length = 0;
    // half of them 50 ms later: within the window (a window shorter than that would write twice)
    for (let i = 0; i < 15; i++) log.record({ event: 'test', target: `w${i}` });
    await new Promise((resolve) => setTimeout(resolve, 50));
    for (let i = 15; i < 30; i++) log.record({ event: 'test', target: `w${i}` });
    await log.flush();
    assert.is(batches.length, 1, 'one write for the 30 entries');
    assert.is(batches[0]!.trim().split('\n').length, 30);
    const entries = await log.read({ limit: 100 });
    assert.is(entries.length, 31);
    assert.is(entries[0]!.target, 'w29');
    await log.close();
  } finally {
    JournalWriter.prototype.append = append;
    await rm(scratch, { recursive: true, force: true });
  }
});

s('pages follow `next` through the whole log, entries of one millisecond included: nothing lost, nothing twice', async () => {
  const scratch = await mkdtemp(join(tmpdir(), 'audit-'));
  try {
    const clock = new ManualClock(0);
    const log = new AuditLog({ dir: scratch, clock, rotateBytes: 2_000, keep: 20 });
    // bursts of 1 to 7 entries per millisecond, across several rotated files
    for (let i = 0, burst = 0; i < 120; i++) {
      log.record({ event: 'test', target: `p${i}`, actor: { role: i % 3 ? 'admin' : 'system', label: null, serial: null } });
      if (++burst >= (i % 7) + 1) {
        clock.advance(1);
        burst = 0;
      }
    }
    await log.flush();
    for (const [limit, actor] of [[2, undefined], [5, undefined], [3, 'system'], [1000, undefined]] as const) {
      const whole = (await log.page({ limit: 1000, actor })).entries.map((e) => e.target);
      const paged: (string | null)[] = [];
      let before: AuditCursor | undefined;
      for (let pages = 0; pages < 100; pages++) {
        const page = await log.page({ limit, actor, before });
        paged.push(...page.entries.map((e) => e.target));
        if (!page.next) break;
        before = page.next;
      }
      assert.equal(paged, whole, `limit ${limit}, actor ${actor ?? 'any'}`);
    }
    assert.is((await log.page({ limit: 1000 })).entries.length, 120);
    await log.close();
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
});

s('GET /api/audit pages with `before`; a made-up cursor is a validation failure', async () => {
  for (const name of ['hal', 'ivy', 'jo']) await t.call('POST', '/api/users', { body: newUser(name) });
  const first = await t.call('GET', '/api/audit?limit=2');
  assert.is(first.body.entries.length, 2);
  assert.type(first.body.next, 'string');
  const second = await t.call('GET', `/api/audit?limit=2&before=${encodeURIComponent(first.body.next)}`);
  assert.is(second.status, 200);
  const all = (await t.call('GET', '/api/audit?limit=4')).body.entries;
  assert.equal([...first.body.entries, ...second.body.entries], all);
  const everything = await t.call('GET', '/api/audit?limit=1000');
  assert.is(everything.body.next, null);
  for (const bad of ['yesterday', '2026-11-23T10:00:00.000Z', '2026-11-23T10:00:00.000Z~x', '2026-11-23T10:00:00.000Z~1~2']) {
    const refused = await t.call('GET', `/api/audit?before=${encodeURIComponent(bad)}`);
    assert.is(refused.status, 400, bad);
    assert.is(refused.body.error, 'Validation failed');
  }
});

s.run();
