import type { Identity } from '../auth/identity.ts';
import type { MultipartLimits, ParsedMultipart } from './multipart.ts';
import type { RouteRecorder } from './observer.ts';
import type { PendingUpgrade } from './socket.ts';

/**
 * What the edge that received a request knows about it beyond the Request: all optional, so a
 * plain `app.fetch(request)` works without any of it.
 */
export interface EdgeContext {
  /** Address of the TCP peer (the proxy in production). */
  peer?: string;
  /** The Host header as the client sent it (the Request's URL has a fixed origin). */
  readonly host?: string;
  /** Set by an edge that received a WebSocket handshake. */
  upgrade?: PendingUpgrade;
  /** Streams a multipart body from the raw request (Node edge); `request.formData()` otherwise. */
  readMultipart?(limits: MultipartLimits): Promise<ParsedMultipart>;
  /** The body as text straight from the edge's own stream, refused past `limit` (413); `request.body` otherwise. */
  readText?(limit: number): Promise<string>;
}

/** What the middleware chain learns about one request, handed from step to step. */
export interface RequestState extends EdgeContext {
  identity?: Identity;
  params?: unknown;
  query?: unknown;
  body?: unknown;
  /** Where the answer is counted (metrics): the matched route's recorder. */
  recorder?: RouteRecorder;
  /** Runs after the handler returned (temp files of an upload). */
  cleanup?: () => Promise<void>;
  /** The upgrade was accepted for a read-only feed (WsRoute.feed): not audited. */
  feed?: boolean;
}

/** Shape itty-router gives the request: route params and the parsed query string. */
export type RoutedRequest = Request & {
  params: Record<string, string>;
  query: Record<string, string | string[] | undefined>;
};

/** One step of the chain: a Response ends the request, undefined passes it on. */
export type Middleware = (request: RoutedRequest, state: RequestState) => Response | undefined | Promise<Response | undefined>;
