import { STATUS_CODES } from 'node:http';
import type { Runtime } from '../runtime.ts';
import { AppError } from '../errors.ts';
import { errorResponse } from './responses.ts';

/** Every thrown thing becomes `{error, details?}`; internals show only in development mode. */
export function renderError(error: unknown, services: Pick<Runtime, 'mode' | 'log'>): Response {
  if (error instanceof AppError) return errorResponse(error.status, error.message, error.details, error.extra);
  const status = frameworkStatus(error);
  if (status) return errorResponse(status, (error as Error).message || STATUS_CODES[status] || 'Bad request');
  const problem = error instanceof Error ? error : new Error(String(error));
  services.log.error(`unhandled error: ${problem.stack ?? problem.message}`);
  const details = services.mode === 'development' ? { message: problem.message, stack: problem.stack } : undefined;
  return errorResponse(500, 'Internal server error', details);
}

/** 4xx errors raised by libraries (body parsers, the router) pass through with their status. */
function frameworkStatus(error: unknown): number | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const candidate = (error as { status?: unknown; statusCode?: unknown }).status ?? (error as { statusCode?: unknown }).statusCode;
  return typeof candidate === 'number' && candidate >= 400 && candidate <= 499 ? candidate : undefined;
}
