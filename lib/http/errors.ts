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

export const notFound = (message = 'Not found') => new AppError(404, message);
export const badRequest = (message: string, details?: unknown) => new AppError(400, message, details);

/** A failed step of a multi-step operation: `Failed to create tunnel` + `Nginx configuration failed: ...`. */
export function stepFailed(summary: string, prefix: string, cause: unknown): AppError {
  const reason = cause instanceof Error ? cause.message : String(cause);
  return new AppError(500, summary, `${prefix}: ${reason}`);
}
