// One description of an audit line: lib/audit/entry.ts's zod schema, from which the TypeScript
// type is inferred and the GET /api/audit answer is described. Every kind of line the log writes
// (a request, a registry event, a service's record) parses with it, with no field it does not name.
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { AuditEntry } from '../../../lib/audit/entry.ts';
import { AuditList } from '../../../lib/audit/response-shapes.ts';
import { userApp, newUser, type UserTestApp } from '../users/support.ts';

const s = suite('audit entry schema');
let t: UserTestApp;
s.before.each(async () => {
  t = await userApp({ durable: true });
});
s.after.each(() => t.close());

s('every line written parses with the one schema, strictly; the answer is described by it', async () => {
  assert.is((await t.call('POST', '/api/users', { body: newUser('dana') })).status, 201);
  assert.is((await t.call('POST', '/api/certs/agent', { body: { label: 'ci', capabilities: [], allowedSites: [] } })).status, 201);
  t.services.audit.record({ event: 'plugin.installed', target: 'x', actor: { role: 'admin', label: null, serial: 'AB' } });
  await t.services.audit.flush();
  const dir = join(t.services.store.dataDir, 'audit');
  const lines = (await Promise.all((await readdir(dir)).map((n) => readFile(join(dir, n), 'utf8')))).join('').split('\n').filter(Boolean);
  const kinds = new Set<string>();
  for (const line of lines) {
    const entry: AuditEntry = AuditEntry.strict().parse(JSON.parse(line));
    kinds.add(entry.route ? 'request' : `${entry.actor.role} event`);
  }
  assert.equal([...kinds].sort(), ['admin event', 'request', 'system event']);
  assert.is(AuditList.shape.entries.element, AuditEntry, 'GET /api/audit is described by the same schema');
});

s.run();
