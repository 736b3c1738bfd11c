import fc from 'fast-check';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { routes } from '../../../handlers/index.ts';
import { AppError, rateLimited } from '../../../lib/errors.ts';
import { describeRoutes, openApiPath } from '../../../lib/http/openapi/describe.ts';
import { json } from '../../../lib/http/responses.ts';
import { ADMIN_OR_AGENT, route, type AnyRoute } from '../../../lib/http/route.ts';
import { createTestApp, type Caller, type TestApp } from '../../../lib/testing.ts';
import { totpCode } from '../../helpers/totp.ts';
import { agent, makeWorld, openSession, type World } from '../tickets/fixtures.ts';

// Property-based fuzzing of the whole route table: for every route, generated path parameters,
// query strings, bodies and callers never give a 5xx, every status answered is one the OpenAPI
// document lists for that route, every error body is exactly {error, details?}, and a 4xx leaves
// the store and the configuration as they were. The world's clock stands still, so counts only
// grow: each rate-limited route is driven past its limit, and every request that succeeded is sent
// again past the highest limit, so a limit no one told this file about is reached too.
// FUZZ_RUNS (40) and FUZZ_SEED: `npm run bench -- --only=fuzz` runs it longer (test/bench/run.mjs).
// Not fewer: one seed serves every route, so routes of one shape draw the same callers, and at 15
// runs a seed that drew no admin left only 7 routes with a success (the re-sends probe no others).

const RUNS_PER_ROUTE = Number(process.env.FUZZ_RUNS ?? 40);
/** Past every limit the panel has (20 tries a minute overall on the admin 2FA code routes). */
const LIMIT_PROBE = 25;
const SEED = Number(process.env.FUZZ_SEED ?? Date.now() % 100_000);

const callers: Caller[] = ['admin', 'none', agent('alice'), agent('bob'), { agent: 'ops', serial: '0F5' }, { dn: 'CN=agent:' }];

function segments(known: string[]): fc.Arbitrary<string> {
  return fc.oneof(
    fc.uuid({ version: 4 }),
    fc.string({ unit: fc.constantFrom(...'0123456789abcdefABCDEF'), minLength: 1, maxLength: 140 }),
    fc.string({ minLength: 1, maxLength: 40 }).map(encodeURIComponent),
    fc.constantFrom('%', '%zz', '%2F', '.', '..', '-', 'chat:send:x', ...known),
  );
}

const bodies = fc.oneof(
  fc.jsonValue({ maxDepth: 3 }).map((v) => ({ text: JSON.stringify(v) ?? 'null', type: 'application/json' })),
  fc.object({ maxDepth: 2 }).map((v) => ({ text: JSON.stringify(v), type: 'application/json' })),
  fc.string({ maxLength: 60 }).map((text) => ({ text, type: 'application/json' })),
  fc.string({ maxLength: 20 }).map((text) => ({ text, type: 'text/plain' })),
  fc.constant(undefined),
);

const queries = fc.dictionary(fc.string({ maxLength: 8 }), fc.string({ maxLength: 12 }), { maxKeys: 3 });

type Request = { path: string; query: Record<string, string>; body?: { text: string; type: string }; caller: Caller; headers?: Record<string, string> };
type Doc = { paths: Record<string, Record<string, { responses: Record<string, unknown> }>> };
type Answer = { status: number; body: unknown; headers: Headers };

function requests(r: AnyRoute, known: string[]): fc.Arbitrary<Request> {
  const names = [...r.path.matchAll(/:(\w+)/g)].map((m) => m[1]!);
  return fc.record({
    params: fc.tuple(...names.map(() => segments(known))),
    query: queries,
    body: bodies,
    caller: fc.constantFrom(...callers),
  }).map(({ params, query, body, caller }) => {
    let path = r.path;
    params.forEach((value, i) => (path = path.replace(`:${names[i]}`, value)));
    return { path, query, body, caller };
  });
}

type Versioned = { value: unknown; version: number };
const collectionsOf = (t: TestApp) => Object.entries(t.services.store).filter((e): e is [string, Versioned] => typeof e[1] === 'object' && e[1] !== null && 'value' in e[1]);

/** Everything a request could change: every collection and the configuration. */
function stateOf(t: TestApp): string {
  return JSON.stringify([t.services.config.value, ...collectionsOf(t).map(([name, c]) => [name, c.value])]);
}

/** The versions of the configuration and every collection: each accepted update moves one. */
function versionsOf(t: TestApp): string {
  const versions = [t.services.config.version, ...collectionsOf(t).map(([, c]) => c.version)];
  if (!versions.every(Number.isInteger)) throw new Error('a collection without a version: the state cannot be reused between checks');
  return versions.join();
}

/**
 * The state a check serialized after a 4xx, with the versions it was taken at. The next check
 * starts from it while no update was accepted since (a request in between, a driver's set-up): most
 * requests are 4xx, and serializing the state twice each was a third of this suite's time. The
 * state after a request is always serialized afresh, so a 4xx that changes a value in place
 * without an update is caught as before.
 */
let lastState: { t: TestApp; versions: string; text: string } | undefined;
function stateBefore(t: TestApp): string {
  const versions = versionsOf(t);
  return lastState?.t === t && lastState.versions === versions ? lastState.text : stateOf(t);
}

/** The OpenAPI document the app serves: the statuses each route says it answers. */
async function documentOf(t: TestApp): Promise<Doc> {
  const { status, body } = await t.call('GET', '/api/openapi.json');
  assert.is(status, 200);
  return body as Doc;
}

/** One request against the properties; throws a message naming what broke. */
async function check(t: TestApp, doc: Doc, r: AnyRoute, req: Request): Promise<Answer> {
  const before = stateBefore(t);
  lastState = undefined;
  const query = new URLSearchParams(req.query).toString();
  const headers: Record<string, string> = { ...t.headers(req.caller), ...req.headers };
  if (req.body) headers['content-type'] = req.body.type;
  const response = await t.fetch(`${req.path}${query ? `?${query}` : ''}`, { method: r.method, headers, body: req.body && r.method !== 'GET' ? req.body.text : undefined });
  const where = `${r.method} ${req.path}?${query} as ${JSON.stringify(req.caller)} body ${JSON.stringify(req.body)}`;
  const text = await response.text();
  const documented = doc.paths[openApiPath(r.path)]?.[r.method.toLowerCase()]?.responses ?? {};
  if (!(String(response.status) in documented)) throw new Error(`undocumented ${response.status} from ${r.method} ${r.path} (OpenAPI lists ${Object.keys(documented).join(', ')}) for ${where}: ${text.slice(0, 200)}`);
  if (response.status >= 500) throw new Error(`${response.status} for ${where}: ${text}`);
  if (response.status < 400) return { status: response.status, body: undefined, headers: response.headers };
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new Error(`non-JSON ${response.status} for ${where}: ${text.slice(0, 200)}`);
  }
  const keys = body && typeof body === 'object' && !Array.isArray(body) ? Object.keys(body) : [];
  const shaped = typeof (body as { error?: unknown }).error === 'string' && keys.every((k) => k === 'error' || k === 'details');
  if (!shaped) throw new Error(`error body is not {error, details?} for ${where}: ${text.slice(0, 200)}`);
  const after = stateOf(t);
  if (after !== before) throw new Error(`${response.status} changed the state for ${where}`);
  lastState = { t, versions: versionsOf(t), text: after };
  return { status: response.status, body, headers: response.headers };
}

/** Fuzzes each route; returns, per route, a generated request it answered with a success. */
async function fuzz(t: TestApp, doc: Doc, list: readonly AnyRoute[], known: string[], runs: number): Promise<Map<AnyRoute, Request>> {
  const succeeded = new Map<AnyRoute, Request>();
  for (const r of list) {
    const property = fc.asyncProperty(requests(r, known), async (req) => {
      if ((await check(t, doc, r, req)).status < 300) succeeded.set(r, req);
    });
    await fc.assert(property, { numRuns: runs, seed: SEED, includeErrorInReport: true });
  }
  return succeeded;
}

/** Sends `req` until the route answers 429 (each answer checked); the 429 itself, or nothing after LIMIT_PROBE tries. */
async function driveToLimit(t: TestApp, doc: Doc, r: AnyRoute, req: Request): Promise<Answer | undefined> {
  for (let i = 0; i < LIMIT_PROBE; i++) {
    const answer = await check(t, doc, r, req);
    if (answer.status === 429) return answer;
  }
  return undefined;
}

const jsonBody = (value: unknown) => ({ text: JSON.stringify(value), type: 'application/json' });
const routeOf = (key: string) => routes.find((r) => `${r.method} ${r.path}` === key)!;
const WRONG_CODE = jsonBody({ code: '000000' });

/**
 * Each rate-limited route, in this order, with what gets a request past validation and the
 * preconditions to the limit (a 2FA code route needs 2FA set up or enabled, a ticket request a
 * real instance). Every route whose OpenAPI entry lists a 429 must be here.
 */
function limitDrivers(w: World): [string, () => Promise<Request>][] {
  const { t, clock } = w;
  let secret = '';
  let cookie = '';
  return [
    ['POST /api/tickets', async () => {
      // a heartbeat first: the instance goes stale (503) while the clock moves past other limits
      assert.is((await t.call('POST', `/api/tickets/instances/${w.instanceId}/heartbeat`, { as: agent('alice') })).status, 200);
      return { path: '/api/tickets', query: {}, body: jsonBody({ scope: 'chat:send', instanceId: w.instanceId, target: 'bob' }), caller: agent('alice') };
    }],
    ['POST /api/settings/2fa/confirm', async () => {
      secret = (await t.call('POST', '/api/settings/2fa/setup')).body.manualKey;
      return { path: '/api/settings/2fa/confirm', query: {}, body: WRONG_CODE, caller: 'admin' };
    }],
    ['POST /api/settings/2fa/verify', async () => {
      clock.advance(61_000);
      const confirmed = await t.call('POST', '/api/settings/2fa/confirm', { body: { code: totpCode(secret, clock.now()) } });
      assert.is(confirmed.status, 200, JSON.stringify(confirmed.body));
      cookie = confirmed.response.headers.get('set-cookie')!.split(';')[0]!;
      clock.advance(61_000);
      return { path: '/api/settings/2fa/verify', query: {}, body: WRONG_CODE, caller: 'admin' };
    }],
    ['POST /api/settings/2fa/disable', async () => ({ path: '/api/settings/2fa/disable', query: {}, body: WRONG_CODE, caller: 'admin', headers: { cookie } })],
    ['POST /api/enroll', async () => {
      await t.services.config.update({ panel2fa: { enabled: false, secret: null, setupComplete: false } });
      return { path: '/api/enroll', query: {}, body: jsonBody({ token: 'not-a-token', csr: 'not a CSR' }), caller: 'none' };
    }],
    ['GET /api/invite/:token', async () => ({ path: `/api/invite/${'0'.repeat(64)}`, query: {}, caller: 'none' })],
    ['POST /api/invite/:token/accept', async () => ({ path: `/api/invite/${'1'.repeat(64)}/accept`, query: {}, body: jsonBody({ password: 'guessing-1' }), caller: 'none' })],
  ];
}

/** The routes whose OpenAPI entry lists a 429. */
const documentingLimits = (doc: Doc) => routes.filter((r) => '429' in (doc.paths[openApiPath(r.path)]?.[r.method.toLowerCase()]?.responses ?? {})).map((r) => `${r.method} ${r.path}`);

const s = suite('fuzz: every route');
let w: World;
let doc: Doc;
let known: string[];
s.before(async () => {
  w = await makeWorld();
  const { ticketId, sessionId } = await openSession(w);
  await w.t.addAgent('ops', ['tunnels:read', 'tunnels:write'], [], '0F5');
  known = [w.instanceId, w.instanceScope, ticketId, sessionId, 'chat', 'alice', 'bob'];
  doc = await documentOf(w.t);
});
s.after(() => w.t.close());

// First, while the world is whole (the fuzz may delete the ticket scope it stands on).
s('each rate-limited route answers 429 past its limit, documented, {error, details?}, Retry-After as details say', async () => {
  const drivers = limitDrivers(w);
  for (const [key, prepare] of drivers) {
    w.clock.advance(61_000);
    const limited = await driveToLimit(w.t, doc, routeOf(key), await prepare());
    assert.ok(limited, `${key} never answered 429 in ${LIMIT_PROBE} tries`);
    const retryAfter = (limited.body as { details?: { retryAfter?: unknown } }).details?.retryAfter;
    assert.is(limited.headers.get('retry-after'), retryAfter === undefined ? null : String(retryAfter), `${key}: the header repeats details.retryAfter`);
  }
  assert.equal(drivers.map(([key]) => key).sort(), documentingLimits(doc).sort(), 'a driver for each route whose OpenAPI entry lists a 429, and only those');
});

s('no 5xx, only documented statuses, errors are {error, details?}, a 4xx changes nothing; successes sent again reach no undocumented limit', async () => {
  w.clock.advance(61_000);
  const succeeded = await fuzz(w.t, doc, routes, known, RUNS_PER_ROUTE);
  assert.ok(succeeded.size > 30, `${succeeded.size} routes answered a success`);
  for (const [r, req] of succeeded) await driveToLimit(w.t, doc, r, req);
});

s('the checker catches a 500, a stray error field (the old 429 body), an undocumented status and a 4xx that wrote', async () => {
  const broken = [
    route({ method: 'GET', path: '/api/fuzz/bug/:x', access: { roles: ADMIN_OR_AGENT, gate: 'open' }, handle: () => { throw new Error('bug'); } }),
    route({ method: 'GET', path: '/api/fuzz/shape/:x', access: { roles: ADMIN_OR_AGENT, gate: 'open' }, answers: { 400: 'Bad' }, handle: () => json({ error: 'x', stack: 'at ...' }, 400) }),
    // the 429 body of earlier releases: the seconds beside error rather than in details
    route({
      method: 'GET',
      path: '/api/fuzz/limit/:x',
      access: { roles: ADMIN_OR_AGENT, gate: 'open' },
      answers: { 429: 'Too many' },
      handle: () => { throw new AppError(429, 'Too many attempts. Try again later.', undefined, { retryAfter: 38 }); },
    }),
    route({ method: 'GET', path: '/api/fuzz/undocumented/:x', access: { roles: ADMIN_OR_AGENT, gate: 'open' }, handle: () => { throw rateLimited('Too many', 38_000); } }),
    route({
      method: 'GET',
      path: '/api/fuzz/write/:x',
      access: { roles: ADMIN_OR_AGENT, gate: 'open' },
      answers: { 409: 'Written anyway' },
      handle: async ({ services }) => {
        await services.store.tunnels.update(() => void services.config.value);
        await services.config.update({ email: `${services.config.version}@example.test` });
        return json({ error: 'written anyway' }, 409);
      },
    }),
  ];
  const expected = [/^500 for/, /^error body is not/, /^error body is not/, /^undocumented 429 from GET \/api\/fuzz\/undocumented\/:x/, /changed the state/];
  const t = await createTestApp({ routes: broken });
  try {
    const brokenDoc = describeRoutes(broken, { title: 'broken', version: '0' }) as Doc;
    for (const [i, r] of broken.entries()) {
      let caught = '';
      try {
        await check(t, brokenDoc, r, { path: r.path.replace(':x', 'a'), query: {}, caller: 'admin' });
      } catch (error) {
        caught = (error as Error).message;
      }
      assert.match(caught, expected[i]!, r.path);
    }
  } finally {
    await t.close();
  }
});

s.run();
