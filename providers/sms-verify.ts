/**
 * Client of the SMS verification provider. The provider generates the code, sends it, keeps it
 * valid and counts wrong entries; this service never sees the code. Protocol (JSON over HTTPS,
 * `Authorization: Bearer <api key>`):
 *
 *   POST {base}/v1/verifications        {to, channel: 'sms'}
 *     201 {id, to, status: 'pending'}    code sent
 *     400 {code: 'INVALID_PHONE'}        the provider cannot reach this number
 *     429 {code: 'TOO_MANY_REQUESTS'}    the provider's own sending limit for the number
 *   POST {base}/v1/verifications/check  {to, code}
 *     200 {id, status: 'approved'}       right code; the verification is closed
 *     200 {id, status: 'pending'}        wrong code; the provider counted the attempt
 *     404 {code: 'NOT_FOUND'}            no open verification: expired, already approved or never started
 *     429 {code: 'MAX_ATTEMPTS_REACHED'} too many wrong codes; the verification is closed
 *
 * Anything else (5xx, a timeout, an unreadable answer, a refused key, a 429 with another code such
 * as the provider's limit on our account's calls) is SmsVerifyUnavailable: a 429 is the number's or
 * the traveller's only with the code listed for it above. Redirects are not followed: a 3xx would
 * have the POST, the number and on a check the traveller's code, repeated wherever its Location
 * points, so it is SmsVerifyUnavailable too, its body unread. The provider's own text and our key stay
 * in this module and the server log, never in an answer; of its headers only Retry-After
 * (delay-seconds or an HTTP date) is passed on, as whole seconds.
 */

export type SmsCheckResult = 'approved' | 'wrong_code' | 'expired' | 'too_many_attempts';

export interface SmsVerification {
  /** Asks the provider to send a new code to `phone` (E.164); returns the provider's reference. */
  start(phone: string): Promise<{ reference: string }>;
  check(phone: string, code: string): Promise<SmsCheckResult>;
}

/**
 * The provider could not be used (down, slow, misconfigured); `detail` is for the log only,
 * `retryAfterSeconds` the wait its answer asked for (Retry-After), if it asked for one. `sent` is
 * 'no' when the request cannot have sent anything (the provider answered with a failure or a
 * redirect, or the connection was never made), 'unknown' when it may have (a timeout, a connection
 * cut, a success answered unreadably, a gateway's timeout).
 */
export class SmsVerifyUnavailable extends Error {
  constructor(
    readonly detail: string,
    readonly retryAfterSeconds?: number,
    readonly sent: 'no' | 'unknown' = 'unknown',
  ) {
    super('SMS verification provider unavailable');
    this.name = 'SmsVerifyUnavailable';
  }
}

/**
 * The provider refused to send: the number is unreachable, or it is sending too often to it (then
 * `retryAfterSeconds` is the wait its answer asked for, if it asked for one).
 */
export class SmsVerifyRefused extends Error {
  constructor(
    readonly reason: 'invalid_phone' | 'too_many_requests',
    readonly retryAfterSeconds?: number,
  ) {
    super(`SMS verification refused: ${reason}`);
    this.name = 'SmsVerifyRefused';
  }
}

export interface SmsVerifyOptions {
  baseUrl: string;
  apiKey: string;
  timeoutMs: number;
}

export class HttpSmsVerification implements SmsVerification {
  constructor(private readonly options: SmsVerifyOptions) {}

  async start(phone: string): Promise<{ reference: string }> {
    const { status, body, retryAfterSeconds } = await this.post('/v1/verifications', {
      to: phone,
      channel: 'sms',
    });
    if (status === 201 || status === 200) {
      if (typeof body.id !== 'string') throw new SmsVerifyUnavailable('start answered without an id');
      return { reference: body.id };
    }
    if (status === 400 && body.code === 'INVALID_PHONE') throw new SmsVerifyRefused('invalid_phone');
    if (status === 429 && body.code === 'TOO_MANY_REQUESTS')
      throw new SmsVerifyRefused('too_many_requests', retryAfterSeconds);
    throw new SmsVerifyUnavailable(`start answered ${status}`, retryAfterSeconds, sentWhenAnswered(status));
  }

  async check(phone: string, code: string): Promise<SmsCheckResult> {
    const { status, body, retryAfterSeconds } = await this.post('/v1/verifications/check', {
      to: phone,
      code,
    });
    if (status === 200 && body.status === 'approved') return 'approved';
    if (status === 200 && body.status === 'pending') return 'wrong_code';
    if (status === 404) return 'expired';
    if (status === 429 && body.code === 'MAX_ATTEMPTS_REACHED') return 'too_many_attempts';
    throw new SmsVerifyUnavailable(`check answered ${status}`, retryAfterSeconds);
  }

  private async post(
    path: string,
    payload: unknown,
  ): Promise<{ status: number; body: Record<string, unknown>; retryAfterSeconds?: number }> {
    let response: Response;
    try {
      response = await fetch(new URL(path.slice(1), withSlash(this.options.baseUrl)), {
        method: 'POST',
        headers: {
          Authorization: `Bearer ${this.options.apiKey}`,
          'Content-Type': 'application/json',
          Accept: 'application/json',
        },
        body: JSON.stringify(payload),
        redirect: 'manual',
        signal: AbortSignal.timeout(this.options.timeoutMs),
      });
    } catch (error) {
      throw new SmsVerifyUnavailable(
        `request failed: ${(error as Error).name}`,
        undefined,
        sentWhenFailed(error),
      );
    }
    if (response.status >= 300 && response.status < 400) {
      await response.body?.cancel().catch(() => undefined);
      throw new SmsVerifyUnavailable(
        `${path} answered a redirect (${response.status}), not followed`,
        undefined,
        'no',
      );
    }
    const text = await response.text().catch(() => '');
    let body: unknown;
    try {
      body = text ? JSON.parse(text) : {};
    } catch {
      body = null;
    }
    const retryAfterSeconds = retryAfterOf(response.headers.get('Retry-After'), Date.now());
    if (typeof body !== 'object' || body === null) {
      throw new SmsVerifyUnavailable(
        `unreadable answer with status ${response.status}`,
        retryAfterSeconds,
        sentWhenAnswered(response.status),
      );
    }
    return { status: response.status, body: body as Record<string, unknown>, retryAfterSeconds };
  }
}

const DAY = '(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)';
const MONTH = '(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)';
const TIME = '\\d{2}:\\d{2}:\\d{2}';
/** RFC 9110 IMF-fixdate ("Sun, 06 Nov 1994 08:49:37 GMT") and the obsolete RFC 850 form. */
const HTTP_DATE = new RegExp(
  `^(?:${DAY}, \\d{2} ${MONTH} \\d{4}|${DAY}[a-z]*, \\d{2}-${MONTH}-\\d{2}) ${TIME} GMT$`,
);
/** The obsolete asctime form ("Sun Nov  6 08:49:37 1994"), which is in GMT without saying so. */
const ASCTIME_DATE = new RegExp(`^${DAY} ${MONTH} [ \\d]\\d ${TIME} \\d{4}$`);

/**
 * A Retry-After header (delay-seconds or an HTTP date) as whole seconds from `now`, at least 0;
 * undefined when absent or unreadable. How long a wait to pass on is the caller's choice.
 */
export function retryAfterOf(header: string | null, now: number): number | undefined {
  const text = header?.trim();
  if (!text) return undefined;
  if (/^\d+$/.test(text)) return Number(text);
  // Only the three HTTP-date forms: Date.parse alone also reads "1.5" or "-5" as some past date.
  const date = HTTP_DATE.test(text)
    ? Date.parse(text)
    : ASCTIME_DATE.test(text)
      ? Date.parse(`${text} GMT`)
      : NaN;
  return Number.isFinite(date) ? Math.max(0, Math.ceil((date - now) / 1000)) : undefined;
}

/** An answer other than a success or a gateway's timeout (504) says the provider sent nothing. */
function sentWhenAnswered(status: number): 'no' | 'unknown' {
  return (status >= 200 && status < 300) || status === 504 ? 'unknown' : 'no';
}

/** Codes of a connection never made: the request cannot have reached the provider. */
const NEVER_CONNECTED = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN']);

/** A fetch that failed before it connected sent nothing; any other failure may have. */
function sentWhenFailed(error: unknown): 'no' | 'unknown' {
  const code = ((error as { cause?: { code?: unknown } }).cause ?? {}).code;
  return typeof code === 'string' && NEVER_CONNECTED.has(code) ? 'no' : 'unknown';
}

function withSlash(url: string): string {
  return url.endsWith('/') ? url : `${url}/`;
}
