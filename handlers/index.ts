import type { input, output, ZodType } from 'zod';
import type { AnyRoute, HttpMethod } from '../lib/http/route.ts';
import { routes as health } from './health/index.ts';
import { routes as audit } from './audit/index.ts';
import { routes as backup } from './backup/index.ts';
import { routes as openapi } from './openapi/index.ts';
import { routes as metrics } from './metrics/index.ts';
import { routes as onboarding } from './onboarding/index.ts';
import { routes as tunnels } from './tunnels/index.ts';
import { routes as sites } from './sites/index.ts';
import { routes as users } from './users/index.ts';
import { routes as invitations } from './invitations/index.ts';
import { routes as invite } from './invite/index.ts';
import { routes as tickets } from './tickets/index.ts';
import { routes as certs } from './certs/index.ts';
import { routes as enroll } from './enroll/index.ts';
import { routes as settings } from './settings/index.ts';
import { routes as services } from './services/index.ts';
import { routes as system } from './system/index.ts';
import { routes as alerts } from './alerts/index.ts';
import { routes as plugins } from './plugins/index.ts';
import { routes as access } from './access/index.ts';

// Every route, area by area: each folder under handlers/ mirrors its URLs and lists its routes in
// its index.ts (the bundle cannot glob at run time; a test checks every file is listed). The order
// is free: the router tries the most specific patterns first (lib/http/route-order.ts).
const table = [...health, ...audit, ...backup, ...openapi, ...metrics, ...onboarding, ...tunnels, ...sites, ...users, ...invitations, ...invite, ...tickets, ...certs, ...enroll, ...settings, ...services, ...system, ...alerts, ...plugins, ...access] as const;

export const routes: readonly AnyRoute[] = table;

/** Every route's type (method, path, schemas, answer), for the panel's API client (the API contract below). */
export type RouteTable = typeof table;

// The API contract, as types only: each route's method and path, what it takes and what it answers,
// read from the table above. The panel's client is typed from it with `import type`, so no server
// code reaches the browser bundle.

type HttpRoutes = Extract<RouteTable[number], { kind: 'http' }>;

/** The route of this method and path pattern (`/api/tunnels/:id`). */
export type ApiRoute<M extends HttpMethod, P extends string> = Extract<HttpRoutes, { method: M; path: P }>;

/** Every path pattern answering this method. */
export type ApiPath<M extends HttpMethod> = Extract<HttpRoutes, { method: M }>['path'];

/** The JSON a route answers with, from its response schema. */
export type Answer<Route> = Route extends { response?: { schema: infer Z } } ? output<Z> : never;

export type ApiAnswer<M extends HttpMethod, P extends string> = Answer<ApiRoute<M, P>>;

/** A path pattern as the URLs it matches: `/api/tunnels/:id` -> `/api/tunnels/${string}`. */
export type PathLike<P extends string> = P extends `${infer Head}:${string}/${infer Rest}`
  ? `${Head}${string}/${PathLike<Rest>}`
  : P extends `${infer Head}:${string}`
    ? `${Head}${string}`
    : P;

/** What a caller sends as the JSON body: the body schema's input type; undefined when it takes none (or a form, see the panel's upload()). */
export type Sent<Route> = Route extends { body?: infer S } ? input<Extract<NonNullable<S>, ZodType>> : never;

/** What a caller may put in the query string: the query schema's input type; undefined when the route reads none. */
export type SentQuery<Route> = Route extends { query?: infer S } ? input<Extract<NonNullable<S>, ZodType>> : never;

declare const queryOf: unique symbol;
/**
 * A URL with a query string, as the panel's `withQuery()` builds it from the route's query type; it
 * carries the path it was built for, so a query string written by hand is not an API URL.
 */
export type QueryUrl<U extends string> = `${U}?${string}` & { readonly [queryOf]: U };

/** Every path this method answers, as URLs without a query. */
export type ApiPathLike<M extends HttpMethod> = PathLike<ApiPath<M>>;

/** Every URL a caller may send with this method: a path, or a path with a query built by `withQuery()`. */
export type ApiUrl<M extends HttpMethod> = ApiPathLike<M> | QueryUrl<ApiPathLike<M>>;

type WithoutQuery<U extends string> = U extends { readonly [queryOf]: infer Path extends string } ? Path : U;
type Matching<M extends HttpMethod, U extends string> = ApiPath<M> extends infer P extends string ? (P extends unknown ? (U extends PathLike<P> ? P : never) : never) : never;
type NarrowerThan<Others extends string, P extends string> = Others extends unknown ? (PathLike<Others> extends PathLike<P> ? Others : never) : never;
/** Of the patterns a URL matches, those no other one narrows (`/enable/:label` over `/:label`), as the router picks. */
type MostSpecific<All extends string, P extends string = All> = P extends unknown ? ([NarrowerThan<Exclude<All, P>, P>] extends [never] ? P : never) : never;
/** The route a URL reaches: the pattern it spells exactly, else the most specific patterns it matches. */
export type RouteOfUrl<M extends HttpMethod, U extends string> =
  WithoutQuery<U> extends ApiPath<M> ? ApiRoute<M, WithoutQuery<U>> : ApiRoute<M, MostSpecific<Matching<M, WithoutQuery<U>>>>;

type WsRoutes = Extract<RouteTable[number], { kind: 'ws' }>;

/** Every WebSocket route's path. */
export type WsPath = WsRoutes['path'];

/** Every URL a WebSocket may open. */
export type WsUrl = PathLike<WsPath>;

/** One message a WebSocket route sends, from its response schema. */
export type WsMessage<P extends WsPath> = Answer<Extract<WsRoutes, { path: P }>>;

/** What this URL answers with this method. */
export type UrlAnswer<M extends HttpMethod, U extends string> = Answer<RouteOfUrl<M, U>>;

/** The JSON a download route answers when its query asks for it (`response.json`). */
export type JsonVariant<Route> = Route extends { response?: { json?: infer Z } } ? output<Extract<NonNullable<Z>, ZodType>> : never;

export type UrlJsonVariant<M extends HttpMethod, U extends string> = JsonVariant<RouteOfUrl<M, U>>;

/** The JSON body a request of this method to this URL sends. */
export type UrlBody<M extends HttpMethod, U extends string> = Sent<RouteOfUrl<M, U>>;

/** The query a request of this method to this URL may carry. */
export type UrlQuery<M extends HttpMethod, U extends string> = SentQuery<RouteOfUrl<M, U>>;
