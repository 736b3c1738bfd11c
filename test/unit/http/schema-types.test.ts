import { z } from 'zod';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { multipart, type MultipartBody } from '../../../lib/http/multipart.ts';
import { json } from '../../../lib/http/responses.ts';
import { ADMIN_ONLY, route, wsRoute } from '../../../lib/http/route.ts';
import { createTestApp } from '../../../lib/testing.ts';

// A handler's params, query and body types are inferred from the zod schemas the
// route is given (their output: after coercion, defaults and transforms); no generics are spelled.
// Checked by tsc: an assertion below fails the type check when inference breaks.

type Equal<X, Y> = (<T>() => T extends X ? 1 : 2) extends <T>() => T extends Y ? 1 : 2 ? true : false;
const same = <X, Y>(proof: Equal<X, Y>) => proof;
type ContextOf<R extends { handle?: unknown; connect?: unknown }> = R extends { handle(ctx: infer C): unknown } ? C : R extends { connect(ctx: infer C, ...rest: never[]): void } ? C : never;

const Params = z.object({ id: z.uuid() });
const Query = z.object({ limit: z.coerce.number().int().default(20), label: z.string().optional() });
const Body = z.object({ name: z.string().transform((name) => name.trim()), tags: z.array(z.string()).default([]) });
const access = { roles: ADMIN_ONLY, gate: 'open' } as const;

const typed = route({
  method: 'POST',
  path: '/api/test/typed/:id',
  access,
  params: Params,
  query: Query,
  body: Body,
  handle: ({ params, query, body }) => json({ id: params.id, limit: query.limit + 1, name: body.name, tags: body.tags.length }),
});
const bare = route({ method: 'GET', path: '/api/test/bare', access, handle: () => json({}) });
const upload = route({ method: 'POST', path: '/api/test/upload', access, body: multipart({ maxFileBytes: 1, maxTotalBytes: 1, maxFiles: 1 }), handle: () => json({}) });
const socket = wsRoute({ path: '/api/test/ws/:id', access, params: Params, query: Query, connect: () => {} });

const s = suite('handler types come from the route schemas');

s('types: each part is its schema output; a route without a schema gets none', () => {
  type Typed = ContextOf<typeof typed>;
  assert.ok(same<Typed['params'], z.output<typeof Params>>(true));
  assert.ok(same<Typed['query'], z.output<typeof Query>>(true));
  assert.ok(same<Typed['body'], z.output<typeof Body>>(true));
  assert.ok(same<Typed['query']['limit'], number>(true));
  assert.ok(same<Typed['body']['tags'], string[]>(true));
  type Bare = ContextOf<typeof bare>;
  assert.ok(same<Bare['params'], Record<string, never>>(true));
  assert.ok(same<Bare['query'], Record<string, never>>(true));
  assert.ok(same<Bare['body'], undefined>(true));
  assert.ok(same<ContextOf<typeof upload>['body'], MultipartBody>(true));
  type Socket = ContextOf<typeof socket>;
  assert.ok(same<Socket['params'], z.output<typeof Params>>(true));
  assert.ok(same<Socket['query'], z.output<typeof Query>>(true));
  // @ts-expect-error the input type (limit optional, a string or number) is not what the handler gets
  assert.ok(same<Typed['query'], z.input<typeof Query>>(true));
});

s('run time: the handler gets the parsed values its type promises', async () => {
  const t = await createTestApp({ routes: [typed] });
  try {
    const id = '7d3f1c1e-5b0a-4c55-9a3e-0f1e2d3c4b5a';
    const answer = await t.call('POST', `/api/test/typed/${id}?limit=4`, { body: { name: '  ann ' } });
    assert.is(answer.status, 200);
    assert.equal(answer.body, { id, limit: 5, name: 'ann', tags: 0 });
  } finally {
    await t.close();
  }
});

s.run();
