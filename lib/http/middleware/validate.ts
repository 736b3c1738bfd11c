import type { ZodType } from 'zod';
import { summarizeZodIssues } from '../../state/zod-issues.ts';
import { AppError, bodyTooLarge, validationFailed } from '../../errors.ts';
import { isMultipartSpec, readMultipartFromRequest, type MultipartSpec } from '../multipart.ts';
import type { AnyRoute } from '../route.ts';
import type { Middleware, RequestState, RoutedRequest } from '../state.ts';

/** JSON bodies larger than this are refused before parsing. */
export const MAX_JSON_BODY_BYTES = 1024 * 1024;

function check<T>(schema: ZodType<T> | undefined, input: unknown): T {
  if (!schema) return input as T;
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  throw validationFailed(summarizeZodIssues(result.error.issues));
}

/** The body as text, refused as soon as it passes the limit (a chunked body declares no length). */
async function readBoundedText(request: RoutedRequest, state: RequestState, limit: number): Promise<string> {
  if (Number(request.headers.get('content-length') ?? 0) > limit) throw bodyTooLarge();
  if (state.readText) return state.readText(limit);
  if (!request.body) return '';
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel();
      throw bodyTooLarge();
    }
    chunks.push(value);
  }
  const decoder = new TextDecoder();
  return chunks.map((chunk, at) => decoder.decode(chunk, { stream: at < chunks.length - 1 })).join('');
}

async function readJsonBody(request: RoutedRequest, state: RequestState): Promise<unknown> {
  const text = await readBoundedText(request, state, MAX_JSON_BODY_BYTES);
  if (text.trim() === '') return {};
  const type = request.headers.get('content-type');
  if (type && !/^application\/([\w.+-]+\+)?json\b/i.test(type)) {
    throw new AppError(415, 'Content-Type must be application/json');
  }
  try {
    return JSON.parse(text);
  } catch {
    throw validationFailed([{ path: '', message: 'Malformed JSON body' }]);
  }
}

/** The edge's streaming reader when it has one; the temp files go once the handler returned. */
async function readMultipartBody(request: RoutedRequest, state: RequestState, spec: MultipartSpec<unknown>): Promise<unknown> {
  const reading = state.readMultipart ? state.readMultipart(spec.limits) : readMultipartFromRequest(request, spec.limits);
  const parsed = await (spec.refusalPrefix === undefined ? reading : reading.catch((error: unknown) => {
    if (error instanceof AppError && error.status < 500) throw new AppError(400, `${spec.refusalPrefix}${error.message}`, error.details);
    throw error;
  }));
  state.cleanup = parsed.cleanup;
  return parsed.body;
}

/** Params, query and body through the route's zod schemas (or the upload's limits); the handler sees only parsed values. */
export function validate(route: AnyRoute): Middleware | undefined {
  const bodySpec = route.kind === 'http' ? route.body : undefined;
  if (!route.params && !route.query && !bodySpec) return undefined;
  return async (request, state) => {
    state.params = check(route.params, { ...request.params });
    state.query = check(route.query, { ...request.query });
    if (isMultipartSpec(bodySpec)) state.body = await readMultipartBody(request, state, bodySpec);
    else if (bodySpec) state.body = check(bodySpec, await readJsonBody(request, state));
    return undefined;
  };
}
