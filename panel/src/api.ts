// Every request of the panel goes through here: one progress counter for the whole page, the
// server's error message (never a stack), field issues, and the admin 2FA prompt with a retry.
import { signal } from '@preact/signals';
// Types only (erased by esbuild): the server's route table, so an answer's type is the route's own.
import type { ApiPathLike, ApiUrl, QueryUrl, UrlAnswer, UrlBody, UrlJsonVariant, UrlQuery, WsMessage, WsUrl } from '../../handlers/index.ts';
import type { HttpMethod } from '../../lib/http/route.ts';

export type { ApiUrl, UrlAnswer, UrlBody, UrlJsonVariant, WsMessage, WsUrl };
/** What GET of this URL answers. */
export type GetAnswer<U extends string> = UrlAnswer<'GET', U>;

export interface Issue { path: string; message: string }

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    /** A string `details` (e.g. `Certificate issuance failed: ...`); objects are not shown, they may hold internals. */
    readonly detail: string | undefined,
    readonly issues: Issue[],
    readonly body: any,
  ) {
    super(message);
  }
  /** "Not found" from a list route: the feature's API is not on this server. */
  get missingRoute(): boolean {
    return this.status === 404 && this.message === 'Not found';
  }
  /** Issues by field path, for the inputs they concern. */
  fieldErrors(): Record<string, string> {
    return Object.fromEntries(this.issues.map((i) => [i.path, i.message]));
  }
}

/** Requests in flight; the layout shows a progress line while it is above zero. */
export const inFlight = signal(0);

/** Set while the panel asks for a 2FA code; the dialog resolves it. */
export const twoFactorAsk = signal<{ done(ok: boolean): void } | null>(null);

let asking: Promise<boolean> | undefined;

/** One prompt however many requests were refused at once; they all wait for the same answer. */
function askTwoFactor(): Promise<boolean> {
  asking ??= new Promise<boolean>((resolve) => {
    twoFactorAsk.value = { done: (ok) => { twoFactorAsk.value = null; asking = undefined; resolve(ok); } };
  });
  return asking;
}

async function readBody(response: Response): Promise<any> {
  const text = await response.text();
  if (!text) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** A 429's `details.retryAfter` (seconds, also the Retry-After header) told in words, so the admin knows how long to wait. */
function retryHint(body: any): string {
  const seconds = body?.details?.retryAfter;
  return typeof seconds === 'number' && seconds > 0 ? ` Wait ${seconds} s.` : '';
}

export function toApiError(status: number, body: any): ApiError {
  const message = (typeof body?.error === 'string' ? body.error : `Request failed (HTTP ${status})`) + retryHint(body);
  const details = body?.details;
  const detail = typeof details === 'string' ? details : undefined;
  const issues: Issue[] = Array.isArray(details?.issues) ? details.issues.filter((i: any) => typeof i?.message === 'string') : [];
  return new ApiError(status, message, detail, issues, body);
}

/** True when the server asks for the admin's 2FA session. */
export function needsTwoFactor(status: number, body: any): boolean {
  return status === 401 && body?.error === '2fa_required';
}

/** Runs `send` with progress shown; on 401 `2fa_required` asks for the code and sends again. */
export async function tracked<T>(send: () => Promise<{ status: number; body: any }>): Promise<T> {
  inFlight.value++;
  try {
    let result = await send();
    if (needsTwoFactor(result.status, result.body) && (await askTwoFactor())) result = await send();
    if (result.status >= 400) throw toApiError(result.status, result.body);
    return result.body as T;
  } finally {
    inFlight.value--;
  }
}

async function reach(path: string, init: RequestInit): Promise<Response> {
  try {
    return await fetch(path, { ...init, credentials: 'same-origin' });
  } catch {
    throw new ApiError(0, 'The panel server cannot be reached', undefined, [], undefined);
  }
}

/**
 * The body argument a route takes: none when it reads no JSON body, else its body schema's input
 * type, so a field the schema does not take, or a required one left out, fails `tsc -p panel`.
 */
export type BodyArgs<B> = [B] extends [undefined] ? [] : undefined extends B ? [body?: B] : [body: B];

/** A request to a route of the server; what it sends and what it answers are typed from the route's schemas. */
export function api<M extends HttpMethod, U extends ApiUrl<M>>(method: M, path: U, ...body: BodyArgs<UrlBody<M, U>>): Promise<UrlAnswer<M, U>> {
  return send<UrlAnswer<M, U>>(method, path, body[0]);
}

/**
 * A route's URL with a query string, the query typed by the route's query schema (its input type);
 * values go as strings, undefined ones are left out. `method` only picks the route.
 */
export function withQuery<M extends HttpMethod, U extends ApiPathLike<M>>(_method: M, path: U, query: UrlQuery<M, U>): QueryUrl<U> {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(query ?? {})) if (value !== undefined) search.set(name, String(value));
  const text = search.toString();
  return (text ? `${path}?${text}` : path) as QueryUrl<U>;
}

/** GET of a download route's JSON variant (the launchd job's `?format=json`), typed by the route's `response.json`. */
export function getJsonVariant<U extends ApiUrl<'GET'>>(path: U): Promise<UrlJsonVariant<'GET', U>> {
  return send<UrlJsonVariant<'GET', U>>('GET', path, undefined);
}

function send<T>(method: string, path: string, body: unknown): Promise<T> {
  return tracked<T>(async () => {
    const response = await reach(path, {
      method,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: response.status, body: await readBody(response) };
  });
}

export interface Downloaded { blob: Blob; name: string }

/**
 * GET of a file (the backup archive) through fetch rather than a plain link, so that a refusal shows
 * the server's message and a 2FA refusal asks for the code, like any request; the file is whole
 * before the caller hands it to the browser.
 */
export function fetchFile(path: string, fallbackName: string): Promise<Downloaded> {
  return tracked<Downloaded>(async () => {
    const response = await reach(path, { method: 'GET' });
    if (!response.ok) return { status: response.status, body: await readBody(response) };
    const name = /filename="([^"/\\]+)"/.exec(response.headers.get('content-disposition') ?? '')?.[1] ?? fallbackName;
    try {
      return { status: response.status, body: { blob: await response.blob(), name } };
    } catch {
      throw new ApiError(0, 'The download was interrupted', undefined, [], undefined);
    }
  });
}

/** Sends the 2FA code without going through `tracked` (it is what `tracked` waits for). */
export async function verifyTwoFactor(code: string): Promise<void> {
  inFlight.value++;
  try {
    const response = await fetch('/api/settings/2fa/verify', {
      method: 'POST', credentials: 'same-origin', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ code }),
    });
    if (!response.ok) throw toApiError(response.status, await readBody(response));
  } finally {
    inFlight.value--;
  }
}

/** Multipart upload with byte progress (fetch cannot report upload progress). */
export function upload<U extends ApiUrl<'POST'>>(path: U, form: FormData, onProgress: (fraction: number) => void): Promise<UrlAnswer<'POST', U>> {
  return tracked<UrlAnswer<'POST', U>>(() => new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('POST', path);
    xhr.upload.onprogress = (e) => { if (e.lengthComputable) onProgress(e.loaded / e.total); };
    xhr.onload = () => {
      let body: any = xhr.responseText;
      try { body = JSON.parse(xhr.responseText); } catch { /* not JSON: keep the text */ }
      resolve({ status: xhr.status, body });
    };
    xhr.onerror = () => reject(new ApiError(0, 'The upload was interrupted', undefined, [], undefined));
    xhr.send(form);
  }));
}

/** The message to show for anything thrown by a request. */
export function describe(error: unknown): string {
  if (error instanceof ApiError) return error.detail ? `${error.message}: ${error.detail}` : error.message;
  return 'Something went wrong in the panel';
}

/** The socket URL of a WebSocket route (its messages' type: `WsMessage` of the same path). */
export function wsUrl(path: WsUrl): string {
  return `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}${path}`;
}
