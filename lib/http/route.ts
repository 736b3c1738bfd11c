import type { output, ZodType } from 'zod';
import type { AdminIdentity, AgentIdentity, AnonymousIdentity, Identity, Role } from '../auth/identity.ts';
import type { Runtime } from '../runtime.ts';
import type { Reply } from './reply.ts';
import type { MultipartSpec } from './multipart.ts';
import type { RouteSocket } from './socket.ts';

/**
 * Where a route sits in the onboarding life cycle:
 * `open` ignores it, `onboarding` answers 410 once COMPLETED, `management` answers 503 before.
 */
export type Gate = 'open' | 'onboarding' | 'management';

export interface Access {
  /** Roles allowed; admin always passes. */
  roles: readonly Role[];
  gate: Gate;
  /** Capability an agent must hold. */
  capability?: string;
  /** Skips the client-certificate check (health and the public invite/enroll routes). */
  public?: boolean;
  /** Skips the admin 2FA session check (the spec's exempt paths). */
  twoFactorExempt?: boolean;
  /** The caller's certificate must carry an agent label (400 otherwise). */
  needsLabel?: boolean;
}

/**
 * Who reaches the handler of a route with these access rules, once the chain has run: nobody is
 * identified on a public route; `needsLabel` lets only labelled agent certificates through; an
 * admin-only route only admins. Handlers get the narrowed type and need no checks or casts.
 */
export type CallerOf<A extends Access> = A extends { public: true }
  ? AnonymousIdentity
  : A extends { needsLabel: true }
    ? AgentIdentity
    : A['roles'] extends readonly 'admin'[]
      ? AdminIdentity
      : AdminIdentity | AgentIdentity;

export interface HandlerContext<P = unknown, Q = unknown, B = unknown, I extends Identity = Identity> {
  request: Request;
  params: P;
  query: Q;
  body: B;
  identity: I;
  services: Runtime;
  /** The client's address, trusting exactly one proxy hop (see lib/http/client-address.ts). */
  clientAddress(): string | undefined;
}

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/**
 * The success answer a route documents (GET /api/openapi.json): its status and JSON shape. The
 * handler returns what the schema describes and the chain serializes it with `status`; tests check
 * real answers against the schema. `kind` says when the handler gives something else:
 * - `'bytes'`: JSON already serialized (cached lists, see lib/json-bytes.ts), sent as is: neither
 *   serialized nor parsed per request; `schema` still documents its shape.
 * - `'response'`: the handler builds the Response itself (files, streams, text); `contentType`
 *   names its media type when not JSON, and `schema` describes the body (a string for a download).
 * Routes without a `response` are undocumented and build their own Response too.
 */
export type AnswerKind = 'json' | 'bytes' | 'response';

export interface ResponseSpec<R = unknown, K extends AnswerKind = AnswerKind, J = unknown> {
  /** 200 unless told. */
  status?: number;
  schema: ZodType<R>;
  /** `'json'` unless told. */
  kind?: K;
  /** When the body is not JSON (a download): its media type, described by `schema` as a string. */
  contentType?: string;
  /**
   * A download route that also answers JSON when its query asks (`?format=json`): that JSON's shape,
   * documented beside the download's and read by the panel's client (`JsonVariant`).
   */
  json?: ZodType<J>;
}

/** The JSON body a route's `response` describes: what its handler returns and its caller reads. */
export type AnswerOf<S> = S extends { schema: infer Z extends ZodType } ? output<Z> : unknown;

/** JSON serialized ahead of the request (`jsonBytes`). */
export type JsonBytes = string | Uint8Array<ArrayBuffer>;

/** What a handler returns for its route's `response` of body type R and kind K (none: a Response). */
export type Returned<R, K extends AnswerKind> = [K] extends ['response']
  ? Response
  : [K] extends ['bytes']
    ? JsonBytes
    : R | Reply<R>;

/**
 * Statuses a route answers beyond its success and what the chain answers from its access rules and
 * schemas (lib/http/openapi/errors.ts), each with what it means: its service's 404/409/410/429/503,
 * a second success (200 for what already existed). The OpenAPI document lists them, and the
 * route-table fuzz (test/unit/handlers/fuzz.test.ts) fails on any status a route answers undocumented.
 */
export type OtherAnswers = Readonly<Record<number, string>>;

/** How a 429 of lib/errors.ts `rateLimited` says when to try again, for the routes' `answers`. */
export const RETRY_AFTER = 'details.retryAfter (whole seconds) and the Retry-After header say when to try again';

export interface HttpRoute<
  P = unknown,
  Q = unknown,
  B = unknown,
  I extends Identity = Identity,
  R = unknown,
  K extends AnswerKind = AnswerKind,
  M extends HttpMethod = HttpMethod,
  Path extends string = string,
  BIn = unknown,
  QIn = unknown,
  J = unknown,
> {
  kind: 'http';
  method: M;
  path: Path;
  access: Access;
  params?: ZodType<P>;
  /** Its input type (QIn) is what a caller may put in the query string. */
  query?: ZodType<Q, QIn>;
  /**
   * JSON body schema, or `multipart({...})` for uploads (the handler gets a `MultipartBody`). Routes
   * without one get `body: undefined` and may read the request themselves. The schema's input type
   * (BIn) is what a caller sends, its output (B) what the handler reads.
   */
  body?: ZodType<B, BIn> | MultipartSpec<B>;
  response?: ResponseSpec<R, K, J>;
  answers?: OtherAnswers;
  handle(ctx: HandlerContext<P, Q, B, I>): Returned<R, K> | Promise<Returned<R, K>>;
}

export interface WsRoute<P = unknown, Q = unknown, I extends Identity = Identity, Path extends string = string, R = unknown> {
  kind: 'ws';
  method: 'GET';
  path: Path;
  access: Access;
  params?: ZodType<P>;
  query?: ZodType<Q>;
  /** What one message on the socket looks like: for the API description and the panel's type of a message. */
  response?: ResponseSpec<R>;
  answers?: OtherAnswers;
  /**
   * A read-only feed a page opens on every view (tunnel status): its accepted handshakes are not
   * audited, which would fill the log with page views; refused ones still are.
   */
  feed?: true;
  /** Called with the accepted socket after the whole chain passed on the upgrade request. */
  connect(ctx: HandlerContext<P, Q, undefined, I>, socket: RouteSocket): void;
}

export type AnyRoute = HttpRoute | WsRoute;

type HttpDefinition<P, Q, B, A extends Access, R, K extends AnswerKind, M extends HttpMethod, Path extends string, BIn, QIn, J = unknown> = Omit<
  HttpRoute<P, Q, B, CallerOf<A>, R, K, M, Path, BIn, QIn, J>,
  'kind' | 'access'
> & { access: A };
/** A route without a documented `response`: its handler builds the Response. */
type UndocumentedDefinition<P, Q, B, A extends Access, M extends HttpMethod, Path extends string, BIn, QIn> = Omit<
  HttpDefinition<P, Q, B, A, undefined, 'response', M, Path, BIn, QIn>,
  'response'
> & { response?: undefined };
type WsDefinition<P, Q, A extends Access, Path extends string, R> = Omit<WsRoute<P, Q, CallerOf<A>, Path, R>, 'kind' | 'method' | 'access'> & { access: A };

/**
 * A route. The handler's `params`, `query` and `body` types are inferred from the zod schemas given
 * (their output types; `multipart()` gives MultipartBody), its `identity` type from `access` (see
 * CallerOf), what it returns from `response` (see Returned): callers spell no generics, so a
 * handler's types cannot drift from what is validated and documented. The method and path stay
 * literal types, and the body's and query's input types are kept (BIn, QIn), for the route table's
 * type (handlers/index.ts) the panel's client reads: what it sends and what it gets back.
 */
export function route<
  P = Record<string, never>,
  Q = Record<string, never>,
  B = undefined,
  const A extends Access = Access,
  const M extends HttpMethod = HttpMethod,
  const Path extends string = string,
  BIn = undefined,
  QIn = undefined,
>(definition: UndocumentedDefinition<P, Q, B, A, M, Path, BIn, QIn>): HttpRoute<P, Q, B, CallerOf<A>, undefined, 'response', M, Path, BIn, QIn>;
export function route<
  P = Record<string, never>,
  Q = Record<string, never>,
  B = undefined,
  const A extends Access = Access,
  const R = unknown,
  const K extends AnswerKind = 'json',
  const M extends HttpMethod = HttpMethod,
  const Path extends string = string,
  BIn = undefined,
  QIn = undefined,
  J = undefined,
>(definition: HttpDefinition<P, Q, B, A, R, K, M, Path, BIn, QIn, J>): HttpRoute<P, Q, B, CallerOf<A>, R, K, M, Path, BIn, QIn, J>;
export function route(definition: Omit<HttpRoute, 'kind'>): HttpRoute {
  return { kind: 'http', ...definition };
}

/** A WebSocket route; types inferred as for `route`. */
export function wsRoute<P = Record<string, never>, Q = Record<string, never>, const A extends Access = Access, const Path extends string = string, R = unknown>(
  definition: WsDefinition<P, Q, A, Path, R>,
): WsRoute<P, Q, CallerOf<A>, Path, R> {
  return { kind: 'ws', method: 'GET', ...definition };
}

/** Both roles, for the common `admin or agent with capability X` rule. */
export const ADMIN_OR_AGENT = ['admin', 'agent'] as const satisfies readonly Role[];
export const ADMIN_ONLY = ['admin'] as const satisfies readonly Role[];
