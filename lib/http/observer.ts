/**
 * What the app tells about each request it answered, for metrics. lib/http knows only this shape;
 * the composition root passes an implementation (lib/metrics), so no metrics library is loaded here.
 */
export interface RequestObserver {
  /** Called once per route when a table is built (start-up, mount); the request path then costs one call. */
  route(method: string, pattern: string): RouteRecorder;
  /** Requests no route took (client files, 404s). */
  readonly unmatched: RouteRecorder;
}

export interface RouteRecorder {
  record(status: number, seconds: number): void;
}
