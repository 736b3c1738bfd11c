import type { AnsweredRequest } from '../answered-request.ts';
import type { Runtime } from '../runtime.ts';
import { ApiDocument } from './openapi/document.ts';
import { builtInEntryDocument } from './entry-document.ts';
import { Mounts, firstSegments } from './mounts.ts';
import type { RequestObserver } from './observer.ts';
import { Response } from './responses.ts';
import type { RouteEntry } from './lazy-route.ts';
import type { AnyRoute } from './route.ts';
import { fallback, routeTable, type ClientFiles } from './router.ts';
import type { EdgeContext, RequestState, RoutedRequest } from './state.ts';
import { upgraded } from './websocket.ts';

export interface AppOptions {
  /** Non-API reads: files of the web client and its entry document (the Node edge's `clientFiles`). */
  clientFiles?: ClientFiles;
  /** Told of every answered request that can change state (not GET; WebSocket handshakes are) for the audit log; called after the answer is made, never awaited. */
  onResponse?: ResponseObserver;
  /** Told the route pattern, status and duration of every answer (metrics); nothing is measured without one. */
  observer?: RequestObserver;
}

export type ResponseObserver = (answer: AnsweredRequest) => void;

export interface App {
  /** The whole API as a fetch function, answering the calling runtime's standard Responses. */
  fetch(request: Request): Promise<Response>;
  /** For an edge: what it knows beyond the Request (peer, pending upgrade, raw body reader). */
  handle(request: Request, context?: EdgeContext): Promise<Response>;
  /** Adds routes under /api/<name>/ while the server runs; they pass the same chain. */
  mount(name: string, routes: readonly AnyRoute[]): void;
  /** Removes them again; true when something was mounted under that name. */
  unmount(name: string): boolean;
  services: Runtime;
  /** Stops the services' timers and waits for pending writes. */
  close(): Promise<void>;
}

export function createApp(services: Runtime, routes: readonly RouteEntry[], options: AppOptions = {}): App {
  const { observer } = options;
  const mounts = new Mounts(services, firstSegments(routes), observer);
  const clientFiles = options.clientFiles ?? builtInEntryDocument;
  const observe = options.onResponse;
  const apiDocument = new ApiDocument(services.apiDescription, routes);

  // Last in the built-in table, so a request pays for nothing more when a built-in route matches.
  const table = routeTable(routes, services, async (request, state) => {
    const pathname = new URL(request.url).pathname;
    return (await mounts.fetch(request, pathname, state)) ?? fallback(request, pathname, clientFiles);
  }, observer);

  function answer(request: Request, context: EdgeContext): Promise<Response> {
    // The edge's context object becomes the chain's state: no copy per request.
    const state = context as RequestState;
    const answered = table.fetch(request, state) as Promise<Response>;
    if (request.method === 'HEAD') return answered.then(withoutBody);
    // reads (GET) change nothing, so they cost no extra promise or object per request
    const changes = request.method !== 'GET' || state.upgrade !== undefined;
    return observe && changes ? answered.then((response) => (state.feed ? response : audited(observe, request as RoutedRequest, state, response))) : answered;
  }

  const handle = observer ? observed(answer, observer) : (request: Request, context: EdgeContext = {}) => answer(request, context);

  return {
    services,
    handle,
    async fetch(request) {
      return asStandardResponse(await handle(request));
    },
    mount(name, mounted) {
      mounts.mount(name, mounted);
      apiDocument.mounted(name, mounted);
    },
    unmount(name) {
      apiDocument.mounted(name, undefined);
      return mounts.unmount(name);
    },
    close: () => services.close(),
  };
}

/** itty leaves the matched pattern and params on the request; `*` is the fallback. */
function audited(observe: ResponseObserver, request: RoutedRequest & { route?: string }, state: RequestState, response: Response): Response {
  const upgrade = state.upgrade !== undefined;
  observe({
    method: request.method,
    route: request.route === '*' ? undefined : request.route,
    params: request.params ?? {},
    status: upgrade && response === upgraded() ? 101 : response.status,
    identity: state.identity,
    upgrade,
  });
  return response;
}

/** Times each answer and counts it under the route that took it. */
function observed(answer: (request: Request, context: EdgeContext) => Promise<Response>, observer: RequestObserver): App['handle'] {
  return async (request, context = {}) => {
    const started = performance.now();
    const response = await answer(request, context);
    ((context as RequestState).recorder ?? observer.unmatched).record(response.status, (performance.now() - started) / 1000);
    return response;
  };
}

/** HEAD answers as GET would, headers and all, without the body (RFC 9110 §9.3.2). */
function withoutBody(response: Response): Response {
  void response.body?.cancel();
  return new Response(null, { status: response.status, headers: response.headers });
}

/**
 * When an edge in this process installed another Response class, `fetch` callers still get the
 * runtime's own (SvelteKit and `instanceof Response` checks need it).
 */
async function asStandardResponse(response: Response): Promise<Response> {
  if ((response as object) instanceof globalThis.Response) return response;
  const body = response.body ? await response.arrayBuffer() : null;
  return new globalThis.Response(body, { status: response.status, statusText: response.statusText, headers: [...response.headers] });
}
