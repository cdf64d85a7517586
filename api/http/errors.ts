import { Refusal } from '../../domain/refusal.js';

/**
 * The API's refusals are the domain's Refusal (domain/refusal.ts): one error type from the rule
 * to the HTTP edge. These helpers name the common HTTP ones.
 */
export { Refusal };

export const badRequest = (errorCode: string, message: string, details?: Record<string, unknown>) =>
  new Refusal(400, errorCode, message, details);

export const unauthorized = (errorCode = 'UNAUTHORIZED', message = 'Authentication is required') =>
  new Refusal(401, errorCode, message);

export const forbidden = (errorCode = 'FORBIDDEN', message = 'This action is not allowed') =>
  new Refusal(403, errorCode, message);

export const notFound = (errorCode = 'NOT_FOUND', message = 'Not found') =>
  new Refusal(404, errorCode, message);

export const conflict = (errorCode: string, message: string, details?: Record<string, unknown>) =>
  new Refusal(409, errorCode, message, details);

/**
 * A refusal the client may retry after a while carries the wait in `details.retryAfterSeconds`
 * (whole seconds, at least 1): the error writer (middleware.ts) sends it as the Retry-After header
 * too. The helpers below set it; anything else that knows when to come back may do the same.
 */
export const retryAfterOf = (refusal: Refusal): number | undefined => {
  const seconds = refusal.details?.retryAfterSeconds;
  return typeof seconds === 'number' && Number.isInteger(seconds) && seconds >= 1 ? seconds : undefined;
};

export const tooManyRequests = (retryAfterSeconds: number, message = 'Too many requests; try again later') =>
  new Refusal(429, 'RATE_LIMITED', message, { retryAfterSeconds });

/** Seconds a client is asked to wait (Retry-After) when a dependency does not answer. */
export const UNAVAILABLE_RETRY_AFTER_SECONDS = 5;

/**
 * 503 `errorCode` for a dependency that does not answer now (Temporal, a provider): the client may
 * retry after `retryAfterSeconds` (Retry-After), UNAVAILABLE_RETRY_AFTER_SECONDS unless it knows better.
 */
export const unavailableFor = (
  errorCode: string,
  message: string,
  retryAfterSeconds = UNAVAILABLE_RETRY_AFTER_SECONDS,
) => new Refusal(503, errorCode, message, { retryAfterSeconds });
