import type { Runtime } from '../runtime.ts';
import { AppError, storageFailure } from '../errors.ts';
import { errorResponse } from './responses.ts';

/** Every thrown thing becomes `{error, details?}`; internals show only in development mode. */
export function renderError(error: unknown, services: Pick<Runtime, 'mode' | 'log'>): Response {
  if (error instanceof AppError) return appErrorResponse(error);
  if (isClientGone(error)) {
    // Nobody reads this answer; a stack would only say where the body stopped arriving.
    services.log.warn(`request abandoned by the client: ${(error as Error).message}`);
    return errorResponse(400, 'Request aborted');
  }
  const status = frameworkStatus(error);
  if (status) return errorResponse(status, (error as Error).message || 'Bad request');
  const problem = error instanceof Error ? error : new Error(String(error));
  const storage = storageFailure(error);
  if (storage) {
    // the same answer on every write path (the step runners' ones say it in their own words): the cause, never a stack
    services.log.error(`storage failure: ${problem.message}`);
    return errorResponse(500, 'Internal server error', `Storage failed: ${storage}`);
  }
  services.log.error(`unhandled error: ${problem.stack ?? problem.message}`);
  const details = services.mode === 'development' ? { message: problem.message, stack: problem.stack } : undefined;
  return errorResponse(500, 'Internal server error', details);
}

/** A 429's `details.retryAfter` (see rateLimited) is said in the standard header too. */
function appErrorResponse(error: AppError): Response {
  const retryAfter = error.status === 429 ? (error.details as { retryAfter?: unknown } | undefined)?.retryAfter : undefined;
  const headers = typeof retryAfter === 'number' ? { 'retry-after': String(retryAfter) } : undefined;
  return errorResponse(error.status, error.message, error.details, error.extra, headers);
}

/** A client that went away mid-body: node's `aborted`/ECONNRESET, or an aborted fetch signal. */
export function isClientGone(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { code, name } = error as { code?: unknown; name?: unknown };
  return code === 'ECONNRESET' || code === 'ERR_STREAM_PREMATURE_CLOSE' || name === 'AbortError';
}

/** 4xx errors raised by libraries (body parsers, the router) pass through with their status. */
function frameworkStatus(error: unknown): number | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const candidate = (error as { status?: unknown; statusCode?: unknown }).status ?? (error as { statusCode?: unknown }).statusCode;
  return typeof candidate === 'number' && candidate >= 400 && candidate <= 499 ? candidate : undefined;
}
