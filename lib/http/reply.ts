/**
 * A handler's answer with more than its body: a second success status the route lists in its
 * `answers` (200 for what already existed) or headers (a cookie). The chain serializes `body` as
 * the route's JSON answer.
 */
export class Reply<R> {
  constructor(
    readonly body: R,
    readonly status?: number,
    readonly headers?: Record<string, string>,
  ) {}
}

export const reply = <R>(body: R, options: { status?: number; headers?: Record<string, string> }): Reply<R> =>
  new Reply(body, options.status, options.headers);
