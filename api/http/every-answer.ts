/**
 * What every answer of the API carries, whoever writes it: the app (api/http/middleware.ts
 * responseHeaders, writeError) or the server for a request Node refuses before the app
 * (api/http/node-answers.ts).
 */

/** What every answer varies by, whatever the route. */
export const VARY = ['Origin', 'Authorization', 'Cookie'];

/** Security headers of every answer. */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'X-Content-Type-Options': 'nosniff',
  'X-Frame-Options': 'DENY',
  'Referrer-Policy': 'no-referrer',
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Strict-Transport-Security': 'max-age=31536000; includeSubDomains',
};

/** The Content-Security-Policy of an answer whose route sets none (a JSON API loads nothing). */
export const DEFAULT_CONTENT_SECURITY_POLICY = "default-src 'none'; frame-ancestors 'none'";

/** The Cache-Control of every answer no route declared public, error answers among them. */
export const PRIVATE_CACHE = 'private, no-store';
