import type { IncomingMessage, Server, ServerResponse } from 'node:http';

/**
 * Settles once `server` has sent its first response, or `idleMs` after the call without one,
 * whichever comes first, and only once. The timer is unref'd: it never holds the process open.
 * The launcher writes its V8 code cache then (lib/launcher.ts), so the cache holds the functions
 * that answering a request compiles, not only the start-up's.
 */
export function firstAnswerOrIdle(server: Server, idleMs: number): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(settle, idleMs).unref();
    const onRequest = (_request: IncomingMessage, response: ServerResponse) => response.once('finish', settle);
    server.on('request', onRequest);
    function settle() {
      clearTimeout(timer);
      server.off('request', onRequest);
      resolve();
    }
  });
}
