import { randomInt, randomUUID } from 'node:crypto';
import { sendJson, startFakeServer, type ReceivedRequest } from './provider-server.js';

/**
 * A local SMS verification provider speaking the protocol of providers/sms-verify.ts:
 * it generates the code, "delivers" it (recorded in `messages`), keeps it and counts wrong
 * entries. Tests read the delivered code like a traveller reads the SMS, and can make the
 * provider fail the way real ones do.
 */
export type SmsFailure =
  /** 500 whose body quotes internal details and the API key, which must never reach a client. */
  | 'error'
  /** Accepts the connection and never answers (the client's timeout must end it). */
  | 'hang'
  /** 200 with a body that is not JSON. */
  | 'garbage'
  /** 429 TOO_MANY_REQUESTS: the provider's own sending limit for the number (Retry-After as given). */
  | 'too_many'
  /** 429 with a code the protocol does not list: the provider's limit on our account's API calls. */
  | 'throttled'
  /** 503, the provider down for a while (Retry-After as given). */
  | 'down';

export interface SmsVerifyFake {
  url: string;
  apiKey: string;
  /** The text of a 'error' failure: a client answer containing any of it leaks provider details. */
  leakMarker: string;
  /** Every SMS the fake delivered, oldest first. */
  messages: { to: string; code: string }[];
  requests: ReceivedRequest[];
  /** The code last delivered to `phone`. */
  lastCode(phone: string): string | undefined;
  /** The next `times` requests fail in the given way, with this Retry-After header if given. */
  failNext(failure: SmsFailure, times?: number, retryAfter?: string): void;
  /** The next request is answered `status` (307 or 308: repeat the POST there) with this Location. */
  redirectNext(location: string, status?: 307 | 308): void;
  /** Lets the open verification of `phone` run out, as the provider's validity period would. */
  expire(phone: string): void;
  close(): Promise<void>;
}

interface Verification {
  id: string;
  code: string;
  attempts: number;
}

export async function startSmsVerifyFake(options: { maxAttempts?: number } = {}): Promise<SmsVerifyFake> {
  const apiKey = `sk_test_${randomUUID().replaceAll('-', '')}`;
  const leakMarker = `provider-internal-${randomUUID()}`;
  const maxAttempts = options.maxAttempts ?? 5;
  const open = new Map<string, Verification>();
  const messages: { to: string; code: string }[] = [];
  const failures: { failure: SmsFailure; retryAfter: string | undefined }[] = [];
  const redirects: { location: string; status: number }[] = [];

  const server = await startFakeServer((request, response) => {
    const redirect = redirects.shift();
    if (redirect) {
      response.writeHead(redirect.status, { Location: redirect.location, 'Content-Type': 'text/plain' });
      response.end(`Moved to ${redirect.location} (${leakMarker})`);
      return;
    }
    const { failure, retryAfter } = failures.shift() ?? {};
    if (failure === 'hang') return;
    if (failure === 'too_many' || failure === 'throttled' || failure === 'down') {
      const status = failure === 'down' ? 503 : 429;
      const code = { too_many: 'TOO_MANY_REQUESTS', throttled: 'API_RATE_LIMIT', down: 'UNAVAILABLE' }[
        failure
      ];
      response.writeHead(status, {
        'Content-Type': 'application/json',
        ...(retryAfter === undefined ? {} : { 'Retry-After': retryAfter }),
      });
      response.end(JSON.stringify({ code, error: leakMarker }));
      return;
    }
    if (failure === 'garbage') {
      response.writeHead(200, { 'Content-Type': 'text/html' });
      response.end('<html>Bad gateway</html>');
      return;
    }
    if (failure === 'error') {
      sendJson(response, 500, {
        error: leakMarker,
        key: apiKey,
        trace: 'at VerifyService.start (verify.js:42)',
      });
      return;
    }
    if (request.headers.authorization !== `Bearer ${apiKey}`) {
      sendJson(response, 401, { code: 'UNAUTHORIZED' });
      return;
    }
    const body = (request.body ?? {}) as { to?: unknown; code?: unknown };
    const to = typeof body.to === 'string' ? body.to : '';
    if (request.path === '/v1/verifications') {
      if (!/^\+\d{8,15}$/.test(to)) return sendJson(response, 400, { code: 'INVALID_PHONE' });
      const verification = open.get(to) ?? {
        id: `VE${randomUUID().replaceAll('-', '')}`,
        code: '',
        attempts: 0,
      };
      verification.code = String(randomInt(0, 1_000_000)).padStart(6, '0');
      open.set(to, verification);
      messages.push({ to, code: verification.code });
      return sendJson(response, 201, { id: verification.id, to, status: 'pending' });
    }
    if (request.path === '/v1/verifications/check') {
      const verification = open.get(to);
      if (!verification) return sendJson(response, 404, { code: 'NOT_FOUND' });
      if (body.code === verification.code) {
        open.delete(to);
        return sendJson(response, 200, { id: verification.id, status: 'approved' });
      }
      verification.attempts += 1;
      if (verification.attempts >= maxAttempts) {
        open.delete(to);
        return sendJson(response, 429, { code: 'MAX_ATTEMPTS_REACHED' });
      }
      return sendJson(response, 200, { id: verification.id, status: 'pending' });
    }
    sendJson(response, 404, { code: 'NO_ROUTE' });
  });

  return {
    url: server.url,
    apiKey,
    leakMarker,
    messages,
    requests: server.requests,
    lastCode: (phone) => messages.filter((message) => message.to === phone).at(-1)?.code,
    failNext(failure, times = 1, retryAfter) {
      for (let i = 0; i < times; i++) failures.push({ failure, retryAfter });
    },
    redirectNext(location, status = 307) {
      redirects.push({ location, status });
    },
    expire(phone) {
      open.delete(phone);
    },
    close: () => server.close(),
  };
}
