/**
 * Errors a client may see. Every one carries a stable errorCode; the message is safe text.
 * Anything that is not an ApiError becomes a 500 INTERNAL_ERROR whose details stay in the log.
 */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly errorCode: string,
    message: string,
    readonly details?: Record<string, unknown>,
    /** Extra top-level body fields some SPEC errors carry (for example available_methods). */
    readonly extra?: Record<string, unknown>,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

export const badRequest = (errorCode: string, message: string, details?: Record<string, unknown>) =>
  new ApiError(400, errorCode, message, details);

export const unauthorized = (errorCode = 'UNAUTHORIZED', message = 'Authentication is required') =>
  new ApiError(401, errorCode, message);

export const forbidden = (errorCode = 'FORBIDDEN', message = 'This action is not allowed') =>
  new ApiError(403, errorCode, message);

export const notFound = (errorCode = 'NOT_FOUND', message = 'Not found') =>
  new ApiError(404, errorCode, message);

export const conflict = (errorCode: string, message: string, details?: Record<string, unknown>) =>
  new ApiError(409, errorCode, message, details);

export const tooManyRequests = (retryAfterSeconds: number) =>
  new ApiError(429, 'RATE_LIMITED', 'Too many requests; try again later', { retryAfterSeconds });
