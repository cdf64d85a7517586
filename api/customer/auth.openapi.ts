import { z } from 'zod';
import type { Config } from '../../config/index.js';
import { ACCOUNT_NAME_MAX } from '../../domain/printed-text.js';
import { Email, LetteredName, NAME_LETTER_RULE, PhoneInput, textRule } from '../http/schemas.js';
import { answers, taggedOperations } from '../http/operation-docs.js';
import { successWith } from '../http/answer-schemas.js';

/**
 * The OpenAPI side of customer sign-in by phone and the session after it (api/customer/auth.ts):
 * request and response schemas, which also validate, and the prose of each route.
 */

const TAGS = ['Customer authentication'];

const Phone = PhoneInput.meta({
  description: 'international form (+963944123456); 00963... and Syrian 09... are read too',
});
const Method = z.enum(['sms', 'chatapp', 'whatsapp']).optional().meta({
  description:
    'sms (default channel), chatapp, or the legacy whatsapp, which is sent by SMS; omitted means whatsapp',
});

export const SendOtpBody = z
  .object({
    phone: Phone,
    method: Method,
    chatappChatId: z.string().min(1).max(64).optional().meta({
      description:
        'chatapp only; used only when it is the chat linked to this number, which the server resolves anyway',
    }),
  })
  .strict()
  .meta({ id: 'SendOtpRequest' });

export const VerifyOtpBody = z
  .object({
    phone: Phone,
    code: z
      .string()
      .regex(/^\d{4,8}$/, 'must be the 4 to 8 digits received')
      .meta({ examples: ['123456'] }),
    method: Method,
    // The account's name, which support and companies read (and the traveller's passenger record
    // takes): one line with a letter, nothing that could make it read as another text. An identity
    // provider's name is held to the same rule (domain/printed-text.ts printableName).
    name: LetteredName(1, ACCOUNT_NAME_MAX)
      .optional()
      .meta({
        description: `used only when the account is created; ${textRule(1, ACCOUNT_NAME_MAX, 'line')}; ${NAME_LETTER_RULE}`,
      }),
    email: Email()
      .optional()
      .meta({ description: 'used only when the account is created; verified by e-mail later' }),
  })
  .strict()
  .meta({ id: 'VerifyOtpRequest' });

export const RefreshBody = z
  .object({
    refreshToken: z
      .string()
      .min(1)
      .max(512)
      .optional()
      .meta({ description: 'legacy fallback; the bb_refresh cookie wins' }),
  })
  .strict()
  .meta({ id: 'RefreshRequest' });

const OtpSent = z.object({
  success: z.literal(true),
  message: z.string(),
  fallbackToSms: z.boolean().meta({
    description: 'true when the method asked for (chatapp, whatsapp or none) is not the channel used',
  }),
  actualChannel: z
    .enum(['sms', 'chatapp', 'local'])
    .meta({ description: 'local: pre-launch mode, no message was sent' }),
  devMode: z.literal(true).optional().meta({ description: 'development mode only' }),
  otpCode: z
    .string()
    .optional()
    .meta({ description: 'development mode only, for codes this server generated' }),
});

/** The account as a sign-in answer shows it (also after a password reset). */
export const UserSummary = z.object({
  id: z.string(),
  phone: z.string().nullable(),
  name: z.string(),
  email: z.string().nullable(),
});

const MobileTokens = {
  token: z
    .string()
    .optional()
    .meta({ description: 'X-Client: mobile only: access token (JWT) for Authorization: Bearer' }),
  refreshToken: z.string().optional().meta({ description: 'X-Client: mobile only' }),
  expiresAt: z
    .int()
    .optional()
    .meta({ description: 'X-Client: mobile only: access token expiry, Unix epoch seconds' }),
};

const SignedIn = successWith(
  z.object({
    user: UserSummary,
    isNewUser: z.boolean(),
    emailVerificationPending: z.boolean(),
    ...MobileTokens,
  }),
);

const SessionResult = successWith(
  z.object({
    token: z.string().meta({ description: 'access token (JWT)' }),
    refreshToken: z.string().meta({ description: 'the next refresh token; the one presented is used up' }),
    expiresAt: z.int().meta({ description: 'access token expiry, Unix epoch seconds' }),
  }),
);

const CustomerUser = z.object({
  id: z.string(),
  phone: z.string().nullable(),
  name: z.string(),
  email: z.string().nullable(),
  gender: z.string().meta({ description: 'may be empty' }),
  nationalId: z.string().meta({ description: 'may be empty' }),
  created_at: z.string().meta({ description: 'ISO 8601 UTC' }),
});

const Me = successWith(CustomerUser.nullable());
const SignedOut = z.object({ success: z.literal(true), message: z.string() });

/** A malformed phone number is INVALID_PHONE; anything else is the generic VALIDATION_FAILED. */
export function otpErrorCode(issues: z.core.$ZodIssue[]): string {
  return issues.some((issue) => issue.path[0] === 'phone') ? 'INVALID_PHONE' : 'VALIDATION_FAILED';
}

const sessionRules = (config: Config) =>
  `Access token: a JWT valid ${config.TRAVELLER_ACCESS_TTL_SECONDS / 60} minutes (TRAVELLER_ACCESS_TTL_SECONDS); ` +
  `session and refresh token: ${config.TRAVELLER_SESSION_TTL_DAYS} days (TRAVELLER_SESSION_TTL_DAYS). Web: cookies ` +
  'bb_access (HttpOnly, Secure, SameSite=Lax, Path=/), bb_refresh (HttpOnly, Secure, SameSite=Strict, Path=/api/auth/customer) ' +
  'and bb_csrf (readable, Secure, SameSite=Lax, Path=/; echo it in X-CSRF-Token on state-changing calls). Mobile: send ' +
  'header `X-Client: mobile` to get token, refreshToken and expiresAt in the body instead of cookies, then use ' +
  'Authorization: Bearer (no CSRF header needed).';

/** send-otp's limits, and the provider's own, as its prose states them. */
const sendOtpLimits = (config: Config) =>
  `${config.OTP_SEND_PER_IP_PER_HOUR} requests per client IP and ${config.OTP_SEND_PER_PHONE_PER_HOUR} per phone number ` +
  'per hour (429 RATE_LIMITED with Retry-After). A send the SMS provider refused or failed (it answered that it sent ' +
  'nothing, or could not be reached), or a number pre-launch mode refused, does not count against the phone number, ' +
  'only against the client IP; one whose ' +
  'outcome is unknown (a timeout, an unreadable success, a 504, or one after a chat-bot message failed) counts, as ' +
  'the code may have gone out. The SMS provider ' +
  'refusing to send to the number again is 429 RATE_LIMITED too, and both its refusal and its 503 OTP_UNAVAILABLE ' +
  'carry Retry-After (and details.retryAfterSeconds): the wait the provider asked for, kept within 1 s to 1 h, else 60 s.';

/** The docs of each route, in the order they are registered (their prose quotes the configured limits). */
export const docsFor = (config: Config) =>
  taggedOperations(TAGS, {
    sendOtp: {
      summary: 'Send a one-time sign-in code to a phone number',
      description:
        'method sms: the SMS verification provider generates, sends, keeps and attempt-limits the code. method chatapp: ' +
        `this server generates a 6-digit code (valid ${Math.round(config.OTP_LOCAL_CODE_TTL_SECONDS / 60)} minutes, ` +
        `${config.OTP_LOCAL_MAX_ATTEMPTS} wrong entries ` +
        'burn it) and the chat bot sends it to the chat linked to the number through the bot; with no bot token configured, ' +
        'no linked chat, a chatappChatId that is not the linked chat, or a bot failure (a redirect too), the code goes by SMS ' +
        '(fallbackToSms true, actualChannel sms). Legacy whatsapp, and an omitted method, go by SMS with no WhatsApp contact ' +
        '(fallbackToSms true). A new code replaces the previous one. Pre-launch mode (OTP_PRELAUNCH, only while SITE_MODE ' +
        'is coming_soon): no provider is contacted; reserved demo numbers (+963900...) get a local code (actualChannel ' +
        'local), any other number gets 503 PRELAUNCH_PHONE_NOT_ALLOWED. devMode and otpCode appear in development mode only. ' +
        'Provider failure, timeout, a redirect (never followed), or its limit on our own calls: 503 OTP_UNAVAILABLE (no ' +
        'provider detail is returned). Rate limits: ' +
        sendOtpLimits(config),
      responses: answers(200, 'Code dispatched', OtpSent, [400, 429, 503]),
    },
    verifyOtp: {
      summary: 'Sign in with the one-time code (creates the account when new)',
      description:
        'The code is checked against the last one sent to the number, whatever channel carried it, and used up only by a ' +
        'sign-in that succeeds: the code, a new account and the session are written in one transaction, so a refusal ' +
        '(403 ACCOUNT_DISABLED) or a server error leaves the code usable (but for an SMS code, which the provider closes ' +
        'once it approves it: then request a new one) and no account created; a wrong code counts against its attempts at once. ' +
        '400 OTP_INVALID (wrong code), 400 OTP_EXPIRED (expired, used, replaced, or none sent), 429 OTP_TOO_MANY_ATTEMPTS ' +
        '(the code is burnt; request a new one), 503 OTP_UNAVAILABLE (the provider down, slow, redirecting (never ' +
        'followed) or limiting our own calls: with Retry-After, as on send-otp, and the code stays usable), 503 ' +
        'PRELAUNCH_PHONE_NOT_ALLOWED, 403 ACCOUNT_DISABLED. ' +
        'A new number creates the traveller profile and the account in one transaction (isNewUser true); name and email are ' +
        'used only then, and an e-mail another account holds is kept on the profile only. emailVerificationPending is true ' +
        'while the account has an unverified e-mail; a new account gets the verification link at once (POST ' +
        '/auth/customer/resend-verification sends another). Inventory scope ' +
        `is server-side metadata only; no field here can set it. ${sessionRules(config)} Rate limit: ` +
        `${config.OTP_VERIFY_PER_IP_PER_HOUR} requests per client IP per hour.`,
      responses: answers(200, 'Signed in', SignedIn, [400, 403, 429, 503]),
    },
    refreshSession: {
      summary: 'Exchange the refresh token for new tokens',
      description:
        'Reads the refresh token from the bb_refresh cookie first and from the body field refreshToken only when there is ' +
        'no cookie. Each refresh token works once and is replaced; presenting a used one again ends the whole session ' +
        '(401 REFRESH_TOKEN_REUSED) and every token of it. Only the same refresh sent twice (two tabs, a retried request) ' +
        `within ${config.TRAVELLER_REFRESH_REUSE_GRACE_SECONDS} seconds of the token's first use ` +
        '(TRAVELLER_REFRESH_REUSE_GRACE_SECONDS; 0 turns this off), while none of its replacements has been used, gets ' +
        'another set of new tokens of the same session instead; once one of those replacements is used, presenting ' +
        'another of them (a lost answer) is reuse too and ends the session. 401 INVALID_REFRESH_TOKEN for an unknown, expired or ended ' +
        'session, 401 AUTH_REQUIRED with no refresh token at all; web cookies are cleared on any refusal. The web gets new ' +
        'cookies too (not with X-Client: mobile), except that bb_csrf keeps its value: it lasts the session (a sign-in ' +
        `makes a new one; a missing or malformed one is replaced). ${sessionRules(config)}`,
      responses: answers(200, 'New tokens', SessionResult, [400, 401]),
    },
    getCurrentCustomer: {
      summary: 'The signed-in traveller',
      description:
        'data null (200) only with no session at all: no Authorization header, no bb_access cookie and no bb_refresh ' +
        'cookie. An invalid or expired access token, an ended session, or a malformed Authorization header: 401 ' +
        'INVALID_CREDENTIAL (never a silent null). A bb_refresh cookie without an access credential (bb_access expires ' +
        'with its 15-minute token, bb_refresh lasts the session): 401 INVALID_CREDENTIAL with the cookies kept while ' +
        'its session is live (POST /auth/customer/refresh, then ask again), or with the cookies cleared when it names ' +
        'no live session (ended, expired, unknown).',
      responses: answers(200, 'The traveller, or null', Me, [401]),
    },
    logout: {
      summary: 'End the session and clear the cookies',
      description:
        'Ends the session server-side: its access token and refresh token are refused from then on. The session to end ' +
        'is the one the access token names (bearer first, then the bb_access cookie) whenever the server signed that ' +
        'token, even after it expired or once its session already ended elsewhere; else the one of the bb_refresh ' +
        'cookie. An unsigned or forged token names nothing. Web (cookies): needs X-CSRF-Token equal to the bb_csrf ' +
        'cookie (403 CSRF_TOKEN_INVALID otherwise: nothing ends and no cookie is cleared). Mobile (Authorization: ' +
        'Bearer): no CSRF header; a mobile client whose access token expired signs out with that expired token. No ' +
        'body. Whatever the state of the session, and with no session at all, it answers 200 and clears the cookies.',
      responses: answers(200, 'Signed out', SignedOut, [403]),
    },
  });
