/** An expected failure with the spec's status and message; the error boundary renders it. */
export class AppError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly details?: unknown,
    /** Extra top-level fields of the error body (for example `onboardingStatus`). */
    readonly extra?: Record<string, unknown>,
  ) {
    super(message);
    this.name = 'AppError';
  }
}

export const badRequest = (message: string, details?: unknown) => new AppError(400, message, details);

/** A JSON body past its limit, whoever reads it (the fetch core or an edge). */
export const bodyTooLarge = () => new AppError(413, 'Request body too large');

/** The message of a thrown value, for logs and `details` strings. */
export const errorMessage = (e: unknown) => (e instanceof Error ? e.message : String(e));

/** Errors of the host's storage that no retry of the request can mend: the operator has to act. */
const STORAGE_FAILURES = new Set(['ENOSPC', 'EDQUOT', 'EROFS', 'EIO']);

/**
 * The storage failure in `error` or its causes, as `ENOSPC: no space left on device` (node's text
 * without the syscall and path, which say nothing an operator needs and everything about the
 * layout), or null when it is not one.
 */
export function storageFailure(error: unknown): string | null {
  for (let at = error, depth = 0; typeof at === 'object' && at !== null && depth < 5; at = (at as { cause?: unknown }).cause, depth++) {
    const { code, message } = at as { code?: unknown; message?: unknown };
    if (typeof code !== 'string' || !STORAGE_FAILURES.has(code)) continue;
    const text = typeof message === 'string' && message.startsWith(`${code}: `) ? message.split(',')[0]! : code;
    return text;
  }
  return null;
}

/** At most this many entries in `details.issues`, so a bad request cannot make a large answer. */
export const MAX_REPORTED_ISSUES = 20;

/**
 * The spec's first error rule: malformed bodies and parameters; `truncated: true` when issues were
 * cut.
 */
export function validationFailed(issues: readonly { path: string; message: string }[]): AppError {
  if (issues.length <= MAX_REPORTED_ISSUES) return new AppError(400, 'Validation failed', { issues });
  return new AppError(400, 'Validation failed', { issues: issues.slice(0, MAX_REPORTED_ISSUES), truncated: true });
}

/**
 * 429 with the whole seconds to wait as `details.retryAfter` (the spec's error shape is
 * `{error, details?}`, nothing beside them); the error boundary repeats it as a Retry-After header
 * for clients that read only headers.
 */
export function rateLimited(message: string, retryAfterMs: number): AppError {
  return new AppError(429, message, { retryAfter: Math.max(1, Math.ceil(retryAfterMs / 1000)) });
}

/** Every route that names an agent which is not there (or is revoked); Portlama's wording, double quotes and all. */
export const agentCertificateNotFound = (label: string) => new AppError(404, `Agent certificate "${label}" not found`);

/** "Needs label" routes, for a certificate without an agent label. */
export const LABEL_REQUIRED = 'Agent certificate label required';
