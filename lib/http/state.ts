import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Identity } from '../auth/identity.ts';

/** An HTTP upgrade waiting for the chain's verdict. */
export interface PendingUpgrade {
  request: IncomingMessage;
  socket: Duplex;
  head: Buffer;
}

/** What the middleware chain learns about one request, handed from step to step. */
export interface RequestState {
  identity?: Identity;
  params?: unknown;
  query?: unknown;
  body?: unknown;
  upgrade?: PendingUpgrade;
  /** Address of the TCP peer (the proxy in production); absent when called as a plain fetch function. */
  peer?: string;
}

/** Shape itty-router gives the request: route params and the parsed query string. */
export type RoutedRequest = Request & {
  params: Record<string, string>;
  query: Record<string, string | string[] | undefined>;
};

/** One step of the chain: a Response ends the request, undefined passes it on. */
export type Middleware = (request: RoutedRequest, state: RequestState) => Response | undefined | Promise<Response | undefined>;
