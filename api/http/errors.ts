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

export const tooManyRequests = (retryAfterSeconds: number) =>
  new Refusal(429, 'RATE_LIMITED', 'Too many requests; try again later', { retryAfterSeconds });
