// Responses are built with whichever Response class the edge installed (`useResponseClass`): the
// runtime's own by default, so `app.fetch` answers standard Responses; the Node edge installs
// @whatwg-node/fetch's, which the adapter sends at about a third of the CPU of node's and with
// their content-length kept.

/**
 * The runtime's own Response, looked up on first use: in node, reading `globalThis.Response` loads
 * the bundled undici (about 80 ms of start-up), which a server behind the Node edge never needs.
 */
const runtimeResponse = new Proxy(function RuntimeResponse() {} as unknown as typeof globalThis.Response, {
  construct: (_target, args: [BodyInit?, ResponseInit?]) => new globalThis.Response(...args),
  get(_target, key) {
    const value: unknown = Reflect.get(globalThis.Response, key);
    return typeof value === 'function' ? value.bind(globalThis.Response) : value;
  },
});

/** The Response class handlers build with; a live binding, replaced by `useResponseClass`. */
export let Response: typeof globalThis.Response = runtimeResponse;

/** Called once by an edge at start-up, before the first request. */
export function useResponseClass(responseClass: typeof globalThis.Response): void {
  Response = responseClass;
}

// A headers object handed to a Response is written into (content-length), so every Response
// gets its own: a shared one would carry one body's length onto the next.
const JSON_TYPE = 'application/json; charset=utf-8';

// The type is spelled out: Response.json's own differs per runtime (undici `application/json`, Bun
// `application/json;charset=utf-8`, @whatwg-node `application/json; charset=utf-8`), and the
// runtime suite (test/runtimes/) compares the header byte for byte.
export function json(data: unknown, status = 200, headers?: Record<string, string>): Response {
  return Response.json(data, { status, headers: { 'content-type': JSON_TYPE, ...headers } });
}

/**
 * A body that is already serialized JSON (cached list responses). Cache it as bytes
 * (`jsonBytes`): a string is encoded again on every request.
 */
export function jsonText(body: string | Uint8Array<ArrayBuffer>, status = 200): Response {
  return new Response(body, { status, headers: { 'content-type': JSON_TYPE } });
}

export { jsonBytes } from '../json-bytes.ts';

export function errorBody(error: string, details?: unknown, extra?: Record<string, unknown>): Record<string, unknown> {
  return details === undefined ? { error, ...extra } : { error, details, ...extra };
}

export function errorResponse(status: number, error: string, details?: unknown, extra?: Record<string, unknown>, headers?: Record<string, string>): Response {
  return json(errorBody(error, details, extra), status, headers);
}

export function html(body: string, status = 200, headers?: Record<string, string>): Response {
  return new Response(body, { status, headers: { 'content-type': 'text/html; charset=utf-8', ...headers } });
}

/** A file download (PKCS#12 bundles). */
export function attachment(body: Uint8Array<ArrayBuffer>, contentType: string, filename: string): Response {
  return new Response(body, { headers: { 'content-type': contentType, 'content-disposition': `attachment; filename="${filename}"`, 'cache-control': 'no-store' } });
}
