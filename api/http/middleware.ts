import { randomUUID } from 'node:crypto';
import type { Context, Next } from 'koa';
import { handlingRequest, type Logger } from '../../config/logger.js';
import { Refusal, badRequest, retryAfterOf } from './errors.js';
import { DEFAULT_CONTENT_SECURITY_POLICY, PRIVATE_CACHE, SECURITY_HEADERS, VARY } from './every-answer.js';
import { unavailableReporter } from './unavailable.js';

const REQUEST_ID = /^[A-Za-z0-9._-]{8,128}$/;

/** Request id in and out, one JSON log line per request, and the error envelope. */
export function requestLifecycle(logger: Logger) {
  const unavailable = unavailableReporter(logger);
  return async (ctx: Context, next: Next) => {
    const started = process.hrtime.bigint();
    const incoming = ctx.get('X-Request-Id');
    const requestId = REQUEST_ID.test(incoming) ? incoming : randomUUID();
    ctx.state.requestId = requestId;
    ctx.set('X-Request-Id', requestId);
    try {
      // Every line logged while the route runs or its error is written (the cause of a 503 among
      // them) carries the request id (config/logger.ts).
      await handlingRequest(requestId, async () => {
        try {
          await next();
          // An error status with no body (no route matched, or the router's 405) still gets the envelope.
          if (ctx.status >= 400 && ctx.body == null) {
            throw ctx.status === 404
              ? new Refusal(404, 'NOT_FOUND', 'No such route')
              : statusError(ctx.status);
          }
        } catch (error) {
          writeError(ctx, error, logger, unavailable);
        }
      });
    } finally {
      const durationMs = Number(process.hrtime.bigint() - started) / 1e6;
      logger.info(
        {
          requestId,
          method: ctx.method,
          path: ctx.path,
          status: ctx.status,
          durationMs: Math.round(durationMs * 100) / 100,
          errorCode: ctx.state.errorCode,
        },
        'request',
      );
    }
  };
}

function writeError(
  ctx: Context,
  error: unknown,
  logger: Logger,
  unavailable: ReturnType<typeof unavailableReporter>,
) {
  const requestId = ctx.state.requestId;
  let refusal: Refusal;
  const dependencyDown = error instanceof Refusal ? null : unavailable(error);
  if (error instanceof Refusal) {
    refusal = error;
  } else if (dependencyDown) {
    // PostgreSQL or Temporal does not answer: the client may retry; one concise log line per kind.
    refusal = dependencyDown;
  } else if (isHttpError(error) && error.status >= 400 && error.status < 500) {
    // Koa's ctx.throw and body readers: keep the status, never their message (it may quote input).
    refusal = statusError(error.status);
  } else {
    logger.error({ requestId, err: error }, 'unhandled error');
    refusal = new Refusal(500, 'INTERNAL_ERROR', 'Something went wrong on our side');
  }
  ctx.state.errorCode = refusal.code;
  ctx.status = refusal.status;
  ctx.set('Cache-Control', PRIVATE_CACHE);
  // A refusal that knows when to come back (429 limits, 503 a dependency or maintenance) says so.
  const retryAfter = retryAfterOf(refusal);
  if (retryAfter !== undefined) ctx.set('Retry-After', String(retryAfter));
  ctx.body = errorEnvelope(refusal, requestId);
}

/** The body of every error answer: `{ success: false, errorCode, message, details?, requestId }`. */
export function errorEnvelope(refusal: Refusal, requestId: string) {
  return {
    success: false,
    errorCode: refusal.code,
    message: refusal.message,
    ...(refusal.details ? { details: refusal.details } : {}),
    ...refusal.extra,
    requestId,
  };
}

const STATUS_ERRORS: Record<number, [errorCode: string, message: string]> = {
  400: ['BAD_REQUEST', 'The request could not be read'],
  401: ['UNAUTHORIZED', 'Authentication is required'],
  403: ['FORBIDDEN', 'This action is not allowed'],
  404: ['NOT_FOUND', 'Not found'],
  405: ['METHOD_NOT_ALLOWED', 'This method is not allowed on this path'],
  408: ['REQUEST_TIMEOUT', 'The request took too long to arrive'],
  413: ['PAYLOAD_TOO_LARGE', 'The body is too large'],
  415: ['UNSUPPORTED_MEDIA_TYPE', 'Send the body as application/json'],
  417: ['EXPECTATION_FAILED', 'The only expectation supported is 100-continue'],
  429: ['RATE_LIMITED', 'Too many requests; try again later'],
  431: ['HEADERS_TOO_LARGE', 'The request headers or URL are too large'],
  501: ['NOT_IMPLEMENTED', 'This operation is not available'],
  503: ['UNAVAILABLE', 'The service is temporarily unavailable'],
};

/** The envelope for a bare HTTP status. */
export function statusError(status: number): Refusal {
  const [errorCode, message] =
    STATUS_ERRORS[status] ??
    (status >= 500 ? ['INTERNAL_ERROR', 'Something went wrong on our side'] : STATUS_ERRORS[400]!);
  return new Refusal(status, errorCode, message);
}

function isHttpError(error: unknown): error is { status: number } {
  return (
    typeof error === 'object' && error !== null && typeof (error as { status?: unknown }).status === 'number'
  );
}

/**
 * Headers on every response: security headers, `Vary: Origin, Authorization, Cookie` and the fields
 * the route added (ctx.vary), and `private, no-store` unless a route has explicitly declared its
 * answer public.
 */
export function responseHeaders() {
  return async (ctx: Context, next: Next) => {
    try {
      await next();
    } finally {
      // A route that negotiates (Accept-Encoding) says so itself on every answer, its 304 included:
      // what the response happens to carry cannot tell, as a 304 has no Content-Encoding.
      const declared = String(ctx.res.getHeader('Vary') ?? '')
        .split(',')
        .map((field) => field.trim())
        .filter((field) => field && !VARY.some((base) => base.toLowerCase() === field.toLowerCase()));
      ctx.set('Vary', [...VARY, ...declared].join(', '));
      ctx.set(SECURITY_HEADERS);
      if (!ctx.response.get('Content-Security-Policy')) {
        ctx.set('Content-Security-Policy', DEFAULT_CONTENT_SECURITY_POLICY);
      }
      if (!ctx.response.get('Cache-Control')) ctx.set('Cache-Control', PRIVATE_CACHE);
    }
  };
}

/** Marks a response as public catalogue data that shared caches may keep for maxAgeSeconds. */
export function publicCache(ctx: Context, maxAgeSeconds: number) {
  ctx.set('Cache-Control', `public, max-age=${maxAgeSeconds}`);
}

/** The methods any route of the service answers; HEAD and OPTIONS come with GET and the router. */
const KNOWN_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];

/**
 * A method no route answers (TRACE, CONNECT, PROPFIND, ...) is 405 METHOD_NOT_ALLOWED, not the
 * router's 501: the method exists, this path refuses it. Its Allow names the methods of the path
 * (`methodsAt`, as OPTIONS lists them; RFC 9110 15.5.6), and a path no route has is 404 NOT_FOUND
 * whatever the method.
 */
export function knownMethodsOnly(methodsAt: (path: string) => string[]) {
  return async (ctx: Context, next: Next) => {
    if (!KNOWN_METHODS.includes(ctx.method)) {
      const allowed = methodsAt(ctx.path);
      if (allowed.length === 0) throw new Refusal(404, 'NOT_FOUND', 'No such route');
      ctx.set('Allow', allowed.join(', '));
      throw new Refusal(405, 'METHOD_NOT_ALLOWED', 'This method is not allowed on this path');
    }
    await next();
  };
}

const MAX_BODY_BYTES = 64 * 1024;

/** The methods whose body jsonBody reads (the OpenAPI document lists its 413 and 415 on each). */
export const BODY_METHODS: readonly string[] = ['POST', 'PUT', 'PATCH', 'DELETE'];

/**
 * Reads a JSON body (at most 64 KiB, UTF-8, no content coding) into ctx.request.body; other content
 * types, charsets and codings are refused, as is U+0000 or text that is not UTF-8 in the URL. A
 * request for which `unread(ctx)` holds (the payment webhook, which reads nothing of a request) is
 * not checked at all and keeps its body stream untouched.
 */
export function jsonBody(unread: (ctx: Context) => boolean = () => false) {
  return async (ctx: Context, next: Next) => {
    if (unread(ctx)) {
      await next();
      return;
    }
    if (/%00/i.test(ctx.url)) throw nulCharacter();
    if (!percentEncodedUtf8(ctx.url)) throw notUtf8();
    ctx.request.body = BODY_METHODS.includes(ctx.method) ? await readJsonBody(ctx) : undefined;
    const texts = textsOf(ctx.request.body);
    if (!texts) throw tooDeep();
    if (texts.some((text) => text.includes('\u0000'))) throw nulCharacter();
    if (texts.some((text) => LONE_SURROGATE.test(text))) throw loneSurrogate();
    await next();
  };
}

/**
 * U+0000 is refused once for every path, query string and JSON body: PostgreSQL text cannot hold
 * it, and no name, code or phone number has a use for it.
 */
const nulCharacter = () => badRequest('NUL_CHARACTER', 'Text may not contain the NUL character (U+0000)');

/**
 * Half of a UTF-16 surrogate pair (JSON allows the escape "\ud83d" alone: a name cut in the middle
 * of an emoji) is no character at all; PostgreSQL refuses it in jsonb, so it is refused once here.
 */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
const loneSurrogate = () =>
  badRequest('INVALID_UNICODE', 'Text must be valid Unicode (half of a surrogate pair was sent)');

/**
 * JSON exchanged between systems is UTF-8 (RFC 8259 8.1), and so is a percent-encoded URL: bytes
 * in another encoding (a Latin-1 "é") would otherwise be read as U+FFFD and stored in its place.
 */
const notUtf8 = () =>
  badRequest('INVALID_UNICODE', 'Text must be valid Unicode (the bytes sent are not UTF-8)');
const UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
function utf8Text(bytes: Buffer): string {
  try {
    return UTF8.decode(bytes);
  } catch {
    throw notUtf8();
  }
}

/** Whether every percent-encoded sequence of `url` is UTF-8; a `%` that encodes nothing is left alone. */
function percentEncodedUtf8(url: string): boolean {
  try {
    decodeURIComponent(url.replace(/%(?![0-9a-f]{2})/gi, '%25'));
    return true;
  } catch {
    return false;
  }
}

/**
 * How deep arrays and objects may nest in a JSON body: far deeper than any route's schema, and
 * shallow enough for every recursive walk after this one (canonical JSON of a scanned credential,
 * zod, PostgreSQL's jsonb). JSON.parse reads 3,000 levels in 18 KB without complaint.
 */
const MAX_BODY_DEPTH = 64;
const tooDeep = () =>
  badRequest('INVALID_JSON', `The body nests arrays and objects more than ${MAX_BODY_DEPTH} levels deep`);

/**
 * Every string of a JSON value and every key of its objects, walked without recursion (a deep
 * body must not overflow the stack); undefined when it nests deeper than MAX_BODY_DEPTH.
 */
function textsOf(body: unknown): string[] | undefined {
  const texts: string[] = [];
  const pending: { value: unknown; depth: number }[] = [{ value: body, depth: 0 }];
  for (let next = pending.pop(); next; next = pending.pop()) {
    const { value, depth } = next;
    if (typeof value === 'string') texts.push(value);
    if (typeof value !== 'object' || value === null) continue;
    if (depth === MAX_BODY_DEPTH) return undefined;
    if (Array.isArray(value)) {
      for (const item of value as unknown[]) pending.push({ value: item, depth: depth + 1 });
      continue;
    }
    for (const [key, item] of Object.entries(value)) {
      texts.push(key);
      pending.push({ value: item, depth: depth + 1 });
    }
  }
  return texts;
}

async function readJsonBody(ctx: Context): Promise<unknown> {
  const length = Number(ctx.get('Content-Length') || 0);
  const chunked = ctx.get('Transfer-Encoding').includes('chunked');
  if (length === 0 && !chunked) return undefined;
  if (!ctx.is('application/json')) {
    throw new Refusal(415, 'UNSUPPORTED_MEDIA_TYPE', 'Send the body as application/json');
  }
  // No charset means UTF-8, as does US-ASCII (its subset); any other is refused before a byte is read.
  if (!['', 'utf-8', 'utf8', 'us-ascii'].includes(ctx.request.charset.toLowerCase())) {
    throw new Refusal(415, 'UNSUPPORTED_MEDIA_TYPE', 'Send the body as application/json in UTF-8');
  }
  // No content coding is decoded (RFC 9110 8.4.1, 15.5.16): a gzip body, or one in a coding never
  // heard of, is refused, not read as if its bytes were the JSON; Accept-Encoding names what is taken.
  if (!['', 'identity'].includes(ctx.get('Content-Encoding').trim().toLowerCase())) {
    ctx.set('Accept-Encoding', 'identity');
    throw new Refusal(
      415,
      'UNSUPPORTED_MEDIA_TYPE',
      'Send the body without a content coding (Content-Encoding)',
    );
  }
  if (length > MAX_BODY_BYTES) throw new Refusal(413, 'PAYLOAD_TOO_LARGE', 'The body is too large');
  const text = utf8Text(await receivedBody(ctx));
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw badRequest('INVALID_JSON', 'The body is not valid JSON');
  }
}

/**
 * The body's bytes, refused past MAX_BODY_BYTES. A read that fails is a client that hung up or
 * reset mid-body ('aborted', ECONNRESET): its refusal, not a dependency outage (503) in the log.
 */
async function receivedBody(ctx: Context): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of ctx.req) {
      size += (chunk as Buffer).length;
      if (size > MAX_BODY_BYTES) break;
      chunks.push(chunk as Buffer);
    }
  } catch {
    throw badRequest('BAD_REQUEST', 'The body was not received whole');
  }
  if (size > MAX_BODY_BYTES) throw new Refusal(413, 'PAYLOAD_TOO_LARGE', 'The body is too large');
  return Buffer.concat(chunks);
}
