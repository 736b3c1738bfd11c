import type { ZodType } from 'zod';
import { summarizeZodIssues } from '../../state/zod-issues.ts';
import { AppError } from '../errors.ts';
import type { AnyRoute } from '../route.ts';
import type { Middleware, RoutedRequest } from '../state.ts';

/** JSON bodies larger than this are refused before parsing. */
export const MAX_JSON_BODY_BYTES = 1024 * 1024;

export function validationFailed(issues: { path: string; message: string }[]): AppError {
  return new AppError(400, 'Validation failed', { issues });
}

function check<T>(schema: ZodType<T> | undefined, input: unknown): T {
  if (!schema) return input as T;
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  throw validationFailed(summarizeZodIssues(result.error.issues));
}

async function readJsonBody(request: RoutedRequest): Promise<unknown> {
  const declared = Number(request.headers.get('content-length') ?? 0);
  if (declared > MAX_JSON_BODY_BYTES) throw new AppError(413, 'Request body too large');
  const type = request.headers.get('content-type');
  const text = await request.text();
  if (text.length > MAX_JSON_BODY_BYTES) throw new AppError(413, 'Request body too large');
  if (text.trim() === '') return {};
  if (type && !/^application\/([\w.+-]+\+)?json\b/i.test(type)) {
    throw new AppError(415, 'Content-Type must be application/json');
  }
  try {
    return JSON.parse(text);
  } catch {
    throw validationFailed([{ path: '', message: 'Malformed JSON body' }]);
  }
}

/** Params, query and body through the route's zod schemas; the handler sees only parsed values. */
export function validate(route: AnyRoute): Middleware | undefined {
  const bodySchema = route.kind === 'http' ? route.body : undefined;
  if (!route.params && !route.query && !bodySchema) return undefined;
  return async (request, state) => {
    state.params = check(route.params, { ...request.params });
    state.query = check(route.query, { ...request.query });
    if (bodySchema) state.body = check(bodySchema, await readJsonBody(request));
    return undefined;
  };
}
