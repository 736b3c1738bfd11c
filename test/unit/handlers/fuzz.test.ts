import fc from 'fast-check';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { routes } from '../../../handlers/index.ts';
import { json } from '../../../lib/http/responses.ts';
import { ADMIN_OR_AGENT, route, type AnyRoute } from '../../../lib/http/route.ts';
import { addAgent, certificateHeaders, makeTestApp, type Caller, type TestApp } from '../../helpers/app.ts';
import { agent, makeWorld, openSession, type World } from '../tickets/fixtures.ts';

// Property-based fuzzing of the whole route table: for every route, generated path parameters,
// query strings, bodies and callers never give a 5xx, every error body is exactly {error, details?},
// and a 4xx leaves the store and the configuration as they were.

const RUNS_PER_ROUTE = 40;

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

type Request = { path: string; query: Record<string, string>; body?: { text: string; type: string }; caller: Caller };

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

/** Everything a request could change: every collection and the configuration. */
function stateOf(t: TestApp): string {
  const { store, config } = t.services;
  const collections = Object.entries(store).filter(([, c]) => typeof c === 'object' && c !== null && 'value' in c);
  return JSON.stringify([config.value, ...collections.map(([name, c]) => [name, (c as { value: unknown }).value])]);
}

/** One request against the properties; throws a message naming what broke. */
async function check(t: TestApp, r: AnyRoute, req: Request): Promise<void> {
  const before = stateOf(t);
  const query = new URLSearchParams(req.query).toString();
  const headers: Record<string, string> = { ...certificateHeaders(req.caller) };
  if (req.body) headers['content-type'] = req.body.type;
  const response = await t.app.fetch(
    new Request(`http://panel.test${req.path}${query ? `?${query}` : ''}`, { method: r.method, headers, body: req.body && r.method !== 'GET' ? req.body.text : undefined }),
  );
  const where = `${r.method} ${req.path}?${query} as ${JSON.stringify(req.caller)} body ${JSON.stringify(req.body)}`;
  const text = await response.text();
  if (response.status >= 500) throw new Error(`${response.status} for ${where}: ${text}`);
  if (response.status < 400) return;
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new Error(`non-JSON ${response.status} for ${where}: ${text.slice(0, 200)}`);
  }
  const keys = body && typeof body === 'object' && !Array.isArray(body) ? Object.keys(body) : [];
  const shaped = typeof (body as { error?: unknown }).error === 'string' && keys.every((k) => k === 'error' || k === 'details');
  if (!shaped) throw new Error(`error body is not {error, details?} for ${where}: ${text.slice(0, 200)}`);
  if (stateOf(t) !== before) throw new Error(`${response.status} changed the state for ${where}`);
}

async function fuzz(t: TestApp, list: readonly AnyRoute[], known: string[], runs: number): Promise<void> {
  for (const r of list) {
    await fc.assert(fc.asyncProperty(requests(r, known), (req) => check(t, r, req)), { numRuns: runs, seed: Number(process.env.FUZZ_SEED ?? Date.now() % 100_000) });
  }
}

const s = suite('fuzz: every route');
let w: World;
let known: string[];
s.before(async () => {
  w = await makeWorld();
  const { ticketId, sessionId } = await openSession(w);
  await addAgent(w.t, 'ops', ['tunnels:read', 'tunnels:write'], [], '0F5');
  known = [w.instanceId, w.instanceScope, ticketId, sessionId, 'chat', 'alice', 'bob'];
});
s.after(() => w.t.close());

s('no 5xx, errors are {error, details?}, a 4xx changes nothing', async () => {
  await fuzz(w.t, routes, known, RUNS_PER_ROUTE);
});

s('the checker catches a 500, a stray error field and a 4xx that wrote', async () => {
  const broken = [
    route({ method: 'GET', path: '/api/fuzz/bug/:x', access: { roles: ADMIN_OR_AGENT, gate: 'open' }, handle: () => { throw new Error('bug'); } }),
    route({ method: 'GET', path: '/api/fuzz/shape/:x', access: { roles: ADMIN_OR_AGENT, gate: 'open' }, handle: () => json({ error: 'x', stack: 'at ...' }, 400) }),
    route({
      method: 'GET',
      path: '/api/fuzz/write/:x',
      access: { roles: ADMIN_OR_AGENT, gate: 'open' },
      handle: async ({ services }) => {
        await services.store.tunnels.update(() => void services.config.value);
        await services.config.update({ email: `${services.config.version}@example.test` });
        return json({ error: 'written anyway' }, 409);
      },
    }),
  ];
  const t = await makeTestApp({ routes: broken });
  try {
    for (const r of broken) {
      let caught = '';
      try {
        await check(t, r, { path: r.path.replace(':x', 'a'), query: {}, caller: 'admin' });
      } catch (error) {
        caught = (error as Error).message;
      }
      assert.match(caught, /^500 for|^error body is not|changed the state/, r.path);
    }
  } finally {
    await t.close();
  }
});

s.run();
