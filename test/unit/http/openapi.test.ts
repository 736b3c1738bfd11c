// GET /api/openapi.json, generated from the route table and its zod schemas.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import SwaggerParser from '@apidevtools/swagger-parser';
import { z } from 'zod';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { routes } from '../../../handlers/index.ts';
import { openApiPath } from '../../../lib/http/openapi/describe.ts';
import { ADMIN_ONLY, route, type AnyRoute } from '../../../lib/http/route.ts';
import { multipart } from '../../../lib/http/multipart.ts';
import { createTestApp, type Caller, type TestApp } from '../../../lib/testing.ts';

const s = suite('openapi');

type Document = { paths: Record<string, Record<string, { responses: Record<string, unknown>; requestBody?: { content: Record<string, unknown> }; 'x-access': Record<string, unknown> }>> };

async function documentOf(t: TestApp): Promise<Document> {
  const { status, body } = await t.call('GET', '/api/openapi.json');
  assert.is(status, 200);
  return body as Document;
}

const methodOf = (r: AnyRoute) => r.method.toLowerCase();

/** Routes answering a generic object in the document: none now; a new route without a `response` fails here. */
const UNDOCUMENTED: string[] = [];

s('every route of the route-table snapshot is described, with its access rules and error shape', async () => {
  const t = await createTestApp();
  try {
    const doc = await documentOf(t);
    const snapshot = readFileSync(fileURLToPath(new URL('../handlers/route-table.snapshot.md', import.meta.url)), 'utf8');
    const rows = [...snapshot.matchAll(/^\| (GET|POST|PUT|PATCH|DELETE|WS) +\| (\/\S+) +\|/gm)].map((m) => [m[1]!, m[2]!] as const);
    assert.ok(rows.length >= routes.length, 'the snapshot lists every route');
    for (const [method, path] of rows) {
      const operation = doc.paths[openApiPath(path)]?.[method === 'WS' ? 'get' : method.toLowerCase()];
      assert.ok(operation, `${method} ${path} is missing`);
      assert.ok(operation['x-access'].roles, `${method} ${path} has no x-access`);
      assert.ok(operation.responses['500'], `${method} ${path} has no error answer`);
    }
  } finally {
    await t.close();
  }
});

s('the admin 2FA code routes document the spec\'s 400 Validation failed like every other route', async () => {
  const t = await createTestApp();
  try {
    const doc = await documentOf(t);
    const badRequest = (path: string) => (doc.paths[path]!['post']!.responses['400'] as { description: string }).description;
    for (const path of ['/api/settings/2fa/confirm', '/api/settings/2fa/verify', '/api/settings/2fa/disable']) {
      assert.match(badRequest(path), /^Validation failed/, path);
    }
    assert.match(badRequest('/api/tunnels'), /^Validation failed/);
  } finally {
    await t.close();
  }
});

s('the statuses services answer are documented: each rate limit\'s 429, the admin bundle\'s 404 and 410, a missing assignment target\'s 404', async () => {
  const t = await createTestApp();
  try {
    const doc = await documentOf(t);
    const statuses = (path: string, method: string) => Object.keys(doc.paths[path]![method]!.responses);
    for (const [path, method] of [['/api/settings/2fa/confirm', 'post'], ['/api/settings/2fa/verify', 'post'], ['/api/settings/2fa/disable', 'post'], ['/api/enroll', 'post'], ['/api/invite/{token}', 'get'], ['/api/invite/{token}/accept', 'post'], ['/api/tickets', 'post']] as const) {
      assert.ok(statuses(path, method).includes('429'), `${method} ${path}`);
    }
    assert.match((doc.paths['/api/settings/2fa/disable']!['post']!.responses['429'] as { description: string }).description, /details\.retryAfter/);
    assert.ok(['404', '410'].every((s) => statuses('/api/certs/mtls/download', 'get').includes(s)));
    assert.ok(['200', '201', '404'].every((s) => statuses('/api/tickets/assignments', 'post').includes(s)), 'created, already there, and agent or instance not found');
    // a site upload words every refusal as 400 Upload failed; a backup upload keeps 413 and 415
    const siteUpload = statuses('/api/sites/{id}/files', 'post');
    assert.ok(siteUpload.includes('400') && !siteUpload.includes('413') && !siteUpload.includes('415'), siteUpload.join(' '));
    assert.ok(['413', '415'].every((s) => statuses('/api/backup/inspect', 'post').includes(s)));
    // the session heartbeat and the admin kill answer no 409
    assert.not.ok(statuses('/api/tickets/sessions/{sessionId}/heartbeat', 'post').includes('409'));
    assert.not.ok(statuses('/api/tickets/sessions/{sessionId}', 'delete').includes('409'));
  } finally {
    await t.close();
  }
});

s('every built-in route documents its success answer (undocumented: generic object)', () => {
  const undocumented = routes.filter((r) => !r.response).map((r) => `${r.kind === 'ws' ? 'WS' : r.method} ${r.path}`);
  assert.equal(undocumented, UNDOCUMENTED);
});

// One validation covers the built-in document and a mounted route's: swagger-parser compiles the
// OpenAPI schema afresh on every call (about 0.4 s of CPU), and a document that validates stays
// valid with one path taken out, so the built-in document is checked as the mounted one less its path.
s('the document is valid OpenAPI 3.1; a mounted route is described while mounted, multipart bodies too', async () => {
  const t = await createTestApp();
  const upload = route({
    method: 'POST',
    path: '/api/extra/upload/:slot',
    access: { roles: ADMIN_ONLY, gate: 'management' },
    params: z.object({ slot: z.string().max(10) }),
    body: multipart({ maxFileBytes: 10, maxTotalBytes: 10, maxFiles: 1 }),
    response: { status: 201, schema: z.object({ stored: z.number() }) },
    handle: () => ({ stored: 1 }),
  });
  try {
    const builtIn = await documentOf(t);
    assert.not.ok(builtIn.paths['/api/extra/upload/{slot}']);
    t.app.mount('extra', [upload]);
    const withMount = await documentOf(t);
    const { ['/api/extra/upload/{slot}']: mounted, ...builtInPaths } = withMount.paths;
    assert.ok(mounted?.post?.requestBody?.content['multipart/form-data']);
    assert.ok(mounted.post.responses['201']);
    assert.equal({ ...withMount, paths: builtInPaths }, builtIn, 'mounting added its path and changed nothing else');
    const api = await SwaggerParser.validate(structuredClone(withMount) as never);
    assert.is((api as { openapi?: string }).openapi, '3.1.0');
    t.app.unmount('extra');
    assert.equal(await documentOf(t), builtIn);
  } finally {
    await t.close();
  }
});

// A kit's document changes only with a mount, and none of the cases below mounts: one read each
// (the document is about 300 kB, parsed again on every read).
const documents = new WeakMap<TestApp, Promise<Document>>();
function unchangedDocumentOf(t: TestApp): Promise<Document> {
  let document = documents.get(t);
  if (!document) documents.set(t, (document = documentOf(t)));
  return document;
}

/** Calls a route and checks the answer against the schema the document names for it. */
async function conforms(t: TestApp, method: string, path: string, pattern: string, body?: unknown, as?: Caller): Promise<void> {
  const r = routes.find((x) => x.path === pattern && x.method === method);
  assert.ok(r?.response, `${method} ${pattern} documents no response`);
  const answer = await t.call(method, path, { ...(body === undefined ? {} : { body }), ...(as ? { as } : {}) });
  assert.is(answer.status, r.response.status ?? 200, `${method} ${path}: ${JSON.stringify(answer.body)}`);
  const parsed = r.response.schema.safeParse(answer.body);
  assert.ok(parsed.success, `${method} ${path}: ${parsed.error?.message}`);
  const doc = await unchangedDocumentOf(t);
  assert.ok(doc.paths[openApiPath(pattern)]?.[methodOf(r)]?.responses[String(r.response.status ?? 200)]);
}

s('real answers validate against their documented schema', async () => {
  const t = await createTestApp();
  try {
    await conforms(t, 'GET', '/api/health', '/api/health');
    await conforms(t, 'GET', '/api/onboarding/status', '/api/onboarding/status');
    await t.completeOnboarding('example.test');
    const created = await t.call('POST', '/api/tunnels', { body: { subdomain: 'web', port: 9000 } });
    await conforms(t, 'POST', '/api/tunnels', '/api/tunnels', { subdomain: 'app', port: 9001 });
    await conforms(t, 'GET', '/api/tunnels', '/api/tunnels');
    await conforms(t, 'GET', '/api/tunnels/agent-config', '/api/tunnels/agent-config');
    await conforms(t, 'PATCH', `/api/tunnels/${created.body.tunnel.id}`, '/api/tunnels/:id', { enabled: false });
    await conforms(t, 'GET', '/api/sites', '/api/sites');
    await conforms(t, 'GET', '/api/tickets', '/api/tickets');
    await conforms(t, 'DELETE', `/api/tunnels/${created.body.tunnel.id}`, '/api/tunnels/:id');
    const site = await t.call('POST', '/api/sites', { body: { name: 'blog', type: 'managed' } });
    assert.is(site.status, 201, JSON.stringify(site.body));
    await conforms(t, 'PATCH', `/api/sites/${site.body.site.id}`, '/api/sites/:id', { spaMode: true });
    await conforms(t, 'POST', '/api/invitations', '/api/invitations', { username: 'carol', email: 'carol@example.test' });
    await conforms(t, 'GET', '/api/openapi.json', '/api/openapi.json');
    await conforms(t, 'POST', '/api/certs/agent/enroll', '/api/certs/agent/enroll', { label: 'laptop', capabilities: ['tunnels:read'] });
    await conforms(t, 'POST', '/api/settings/2fa/setup', '/api/settings/2fa/setup');
    await conforms(t, 'POST', '/api/plugins/push-install/policies', '/api/plugins/push-install/policies', { name: 'basic', allowedPlugins: ['@acme/hello'] });
    await conforms(t, 'PATCH', '/api/plugins/push-install/config', '/api/plugins/push-install/config', { enabled: true });
    for (const path of ['/api/users', '/api/invitations', '/api/services', '/api/system/stats', '/api/certs', '/api/certs/auto-renew-status', '/api/certs/limits', '/api/certs/admin/auth-mode', '/api/certs/agent', '/api/settings/2fa', '/api/tickets/scopes', '/api/tickets/assignments', '/api/tickets/sessions', '/api/plugins', '/api/plugins/push-install/config', '/api/plugins/push-install/policies', '/api/plugins/push-install/sessions', '/api/audit']) {
      await conforms(t, 'GET', path, path);
    }
  } finally {
    await t.close();
  }
});

s('push-install answers validate against their documented schema', async () => {
  const t = await createTestApp();
  const BASE = '/api/plugins/push-install';
  try {
    await t.completeOnboarding('example.test');
    await t.addAgent('laptop', []);
    const policy = await t.call('POST', `${BASE}/policies`, { body: { name: 'hello only', allowedPlugins: ['@acme/hello'] } });
    const id = policy.body.policy.id;
    await conforms(t, 'PATCH', `${BASE}/policies/${id}`, `${BASE}/policies/:id`, { description: 'one plugin' });
    await conforms(t, 'PATCH', `${BASE}/config`, `${BASE}/config`, { enabled: true, defaultPolicy: id });
    await conforms(t, 'GET', `${BASE}/config`, `${BASE}/config`);
    await conforms(t, 'GET', `${BASE}/policies`, `${BASE}/policies`);
    await conforms(t, 'POST', `${BASE}/enable/laptop`, `${BASE}/enable/:label`, {});
    await conforms(t, 'POST', `${BASE}/laptop`, `${BASE}/:label`, { packageName: '@acme/hello' });
    await conforms(t, 'GET', `${BASE}/agent-status`, `${BASE}/agent-status`, undefined, { agent: 'laptop' });
    await conforms(t, 'GET', `${BASE}/sessions`, `${BASE}/sessions`);
    await conforms(t, 'DELETE', `${BASE}/enable/laptop`, `${BASE}/enable/:label`);
    await conforms(t, 'PATCH', `${BASE}/config`, `${BASE}/config`, { defaultPolicyId: null });
    await conforms(t, 'POST', `${BASE}/policies`, `${BASE}/policies`, { name: 'e2e-pi-test', id: 'e2e-pi-test' });
    await conforms(t, 'DELETE', `${BASE}/policies/${id}`, `${BASE}/policies/:id`);
  } finally {
    await t.close();
  }
});

s('error answers have the documented {error, details?} shape and status', async () => {
  const t = await createTestApp();
  try {
    await t.completeOnboarding('example.test');
    const doc = (await documentOf(t)) as Document & { components: { schemas: { Error: { required: string[] } } } };
    const missing = await t.call('DELETE', '/api/tunnels/7d0c6f5e-1f8a-4c43-9e6b-2a3f0f1d2c3b');
    const invalid = await t.call('POST', '/api/tunnels', { body: { port: 'eighty' } });
    for (const [answer, path, method] of [[missing, '/api/tunnels/{id}', 'delete'], [invalid, '/api/tunnels', 'post']] as const) {
      assert.ok(doc.paths[path]![method]!.responses[String(answer.status)], `${method} ${path} documents ${answer.status}`);
      for (const field of doc.components.schemas.Error.required) assert.type(answer.body[field], 'string');
      assert.ok(Object.keys(answer.body).every((k) => ['error', 'details'].includes(k)), JSON.stringify(answer.body));
    }
  } finally {
    await t.close();
  }
});

s('a schema that does not fit the answer is caught (the check can fail)', () => {
  const r = routes.find((x) => x.path === '/api/tunnels' && x.method === 'GET')!;
  assert.not.ok(r.response!.schema.safeParse({ tunnels: [{ id: 'x' }] }).success);
});

s.run();
