import type { ZodType } from 'zod';
import type { Identity, Role } from '../auth/identity.ts';
import type { Runtime } from '../runtime.ts';
import type { MultipartSpec } from './multipart.ts';
import type { RouteSocket } from './websocket.ts';

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

export interface HandlerContext<P = unknown, Q = unknown, B = unknown> {
  request: Request;
  params: P;
  query: Q;
  body: B;
  identity: Identity;
  services: Runtime;
  /** The client's address, trusting exactly one proxy hop (see lib/http/client-address.ts). */
  clientAddress(): string | undefined;
}

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface HttpRoute<P = unknown, Q = unknown, B = unknown> {
  kind: 'http';
  method: HttpMethod;
  path: string;
  access: Access;
  params?: ZodType<P>;
  query?: ZodType<Q>;
  /**
   * JSON body schema, or `multipart({...})` for uploads (the handler gets a `MultipartBody`). Routes
   * without one get `body: undefined` and may read the request themselves.
   */
  body?: ZodType<B> | MultipartSpec<B>;
  handle(ctx: HandlerContext<P, Q, B>): Response | Promise<Response>;
}

export interface WsRoute<P = unknown, Q = unknown> {
  kind: 'ws';
  method: 'GET';
  path: string;
  access: Access;
  params?: ZodType<P>;
  query?: ZodType<Q>;
  /** Called with the accepted socket after the whole chain passed on the upgrade request. */
  connect(ctx: HandlerContext<P, Q, undefined>, socket: RouteSocket): void;
}

export type AnyRoute = HttpRoute | WsRoute;

type HttpDefinition<P, Q, B> = Omit<HttpRoute<P, Q, B>, 'kind'>;
type WsDefinition<P, Q> = Omit<WsRoute<P, Q>, 'kind' | 'method'>;

export function route<P = Record<string, never>, Q = Record<string, never>, B = undefined>(
  definition: HttpDefinition<P, Q, B>,
): HttpRoute<P, Q, B> {
  return { kind: 'http', ...definition };
}

export function wsRoute<P = Record<string, never>, Q = Record<string, never>>(definition: WsDefinition<P, Q>): WsRoute<P, Q> {
  return { kind: 'ws', method: 'GET', ...definition };
}

/** Both roles, for the common `admin or agent with capability X` rule. */
export const ADMIN_OR_AGENT: readonly Role[] = ['admin', 'agent'];
export const ADMIN_ONLY: readonly Role[] = ['admin'];
