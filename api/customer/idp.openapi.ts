import { z } from 'zod';
import type { Config } from '../../config/index.js';
import { JWKS_REFETCH_COOLDOWN_MS } from '../auth/idp-verify.js';
import { PhoneInput, Uuid } from '../http/schemas.js';
import { answers, taggedOperations } from '../http/operation-docs.js';
import { DateTimeText, IdText, successWith } from '../http/answer-schemas.js';

/**
 * The OpenAPI side of the identity-provider routes (api/customer/idp/): their request and
 * response schemas, which also validate, and the prose of each route.
 */

const TAGS = ['Identity provider'];

/** How long a browser may keep the PWA route's preflight answer. */
export const PWA_PREFLIGHT_MAX_AGE_SECONDS = 600;

/** What every sign-in or linking route may answer besides success. */
const SIGN_IN_REFUSALS = [400, 401, 403, 409, 429, 503];

const IdToken = z
  .string()
  .min(1)
  .max(8192)
  .meta({ description: 'the ID token the identity provider issued (a signed JWT)' });
const FlowId = Uuid.meta({ description: 'flowId from GET /auth/customer/idp/nonce' });

/**
 * A path on the canonical site: one leading '/', not '//' or '/\' (which browsers read as another
 * host), no backslash, whitespace or control character anywhere.
 */
const ReturnTo = z
  .string()
  .max(2048)
  .regex(
    // eslint-disable-next-line no-control-regex -- control characters (\p{Cc}) are what it refuses
    /^\/(?![/\\])[^\\\s\u0000-\u001f\u007f-\u009f]*$/,
    'must be a path on this site starting with a single /',
  )
  .meta({
    description: 'where to continue on the site after sign-in, e.g. /booking/123?seats=2',
    examples: ['/booking/7?seats=2'],
  });

const Phone = PhoneInput.meta({
  description: 'international form (+963944123456); a Syrian number may start with its trunk 0',
});

export const MobileBody = z.object({ idToken: IdToken }).strict().meta({ id: 'IdpMobileSignInRequest' });
export const WebBody = z
  .object({ idToken: IdToken, flowId: FlowId, returnTo: ReturnTo })
  .strict()
  .meta({ id: 'IdpWebSignInRequest' });
export const PwaBody = z
  .object({ idToken: IdToken, flowId: FlowId })
  .strict()
  .meta({ id: 'IdpPwaSignInRequest' });
export const LinkBody = z
  .object({ idToken: IdToken, flowId: FlowId })
  .strict()
  .meta({ id: 'IdpLinkRequest' });
export const NonceQuery = z
  .object({
    channel: z.enum(['web', 'pwa', 'link']).default('web').meta({
      description:
        'which flow the nonce is for: web sign-in (default), PWA sign-in, or linking to a signed-in account',
    }),
  })
  .strict();
export const CompletePhoneBody = z
  .object({
    phone: Phone,
    code: z.string().min(1).max(16).meta({ description: 'the one-time code sent to the phone' }),
    method: z
      .enum(['sms', 'chatapp', 'whatsapp'])
      .optional()
      .meta({ description: 'channel the code was sent by' }),
  })
  .strict()
  .meta({ id: 'CompletePhoneRequest' });

/** A web sign-in's returnTo that is not a path on the site has its own errorCode. */
export const returnToErrorCode = (issues: z.core.$ZodIssue[]) =>
  issues.some((issue) => issue.path[0] === 'returnTo') ? 'INVALID_RETURN_TO' : 'VALIDATION_FAILED';

const Traveller = z
  .object({ id: z.string(), name: z.string(), email: z.string().nullable(), phone: z.string().nullable() })
  .meta({ id: 'TravellerSummary' });
const SignInFacts = {
  isNewUser: z.boolean().meta({ description: 'true when this sign-in created the account' }),
  needsPhone: z.boolean().meta({
    description: 'true while the account has no phone: continue with POST /auth/customer/complete-phone',
  }),
  user: Traveller,
};
const BearerSession = z
  .object({
    success: z.literal(true),
    data: z.object({
      accessToken: z.string(),
      refreshToken: z.string(),
      expiresAt: z.int().meta({ description: 'access token expiry, Unix epoch seconds' }),
      ...SignInFacts,
    }),
  })
  .meta({ id: 'IdpBearerSession' });
const WebSession = successWith(
  z.object({
    next: z.string().meta({ description: 'absolute URL on the canonical site to continue at' }),
    ...SignInFacts,
  }),
);
const NonceResponse = successWith(
  z.object({
    clientId: z.string().meta({ description: 'public web client id to request the ID token for' }),
    flowId: IdText,
    nonce: z
      .string()
      .meta({ description: 'pass to the identity provider as the nonce; the ID token must carry it' }),
    expiresAt: z.int().meta({ description: 'when the flow stops working, Unix epoch seconds' }),
  }),
);
const LinkResponse = successWith(
  z.object({
    identity: z.object({
      provider: z.literal('idp'),
      email: z.string(),
      linkedAt: DateTimeText,
      alreadyLinked: z
        .boolean()
        .meta({ description: 'true when this subject was already linked to this account' }),
    }),
  }),
);
const UnlinkResponse = successWith(z.object({ unlinked: z.literal(true) }));
const CompletePhoneResponse = successWith(
  z.object({
    passengerId: IdText.meta({ description: 'the canonical traveller profile id' }),
    merged: z
      .boolean()
      .meta({ description: 'true when an older traveller record with this phone was merged in' }),
    needsSessionRefresh: z
      .boolean()
      .meta({ description: 'true after a merge: refresh the session (POST /auth/customer/refresh)' }),
    user: Traveller,
  }),
);

type LimitsConfig = Pick<
  Config,
  'IDP_RATE_LIMIT_PER_IP' | 'IDP_RATE_LIMIT_PER_SUBJECT' | 'IDP_RATE_LIMIT_WINDOW_SECONDS'
>;

/** The answers of a sign-in whose tokens go in the body (mobile app, PWA). */
const SIGNED_IN_BY_BEARER = answers(200, 'Signed in', BearerSession, SIGN_IN_REFUSALS);

const rateLimits = (config: LimitsConfig) =>
  `Rate limits: ${config.IDP_RATE_LIMIT_PER_IP} attempts per client IP (counted before the token is checked) and ` +
  `${config.IDP_RATE_LIMIT_PER_SUBJECT} sign-ins per identity subject (counted once the token is verified) per ` +
  `${config.IDP_RATE_LIMIT_WINDOW_SECONDS} s; over either: 429 RATE_LIMITED with Retry-After.`;

const TOKEN_RULES =
  "The ID token must be signed (RS256 or ES256) by a key of the provider's JWKS, come from IDP_ISSUER, be meant for " +
  'the expected client (audience), be unexpired (30 s clock skew) and at most 1 hour old, and carry email_verified ' +
  'true. Name, e-mail and subject come only from the verified token; the body accepts no other field. The e-mail ' +
  'is read by the rule of every e-mail field (an IDN domain in Arabic letters becomes its xn-- form, the domain lower ' +
  'case) and one that rule cannot read counts as none (401 IDP_TOKEN_INVALID). The name ' +
  'claim is held to the rule of a typed name, never refused: line breaks and tabs become spaces, other control and ' +
  'bidirectional-override characters are dropped, white space is one space and trimmed, and it is cut to 100 ' +
  'characters between whole characters (an emoji is never halved); "" when nothing is left or no letter is (as a ' +
  'typed name needs one: diacritics, tatweel or invisible characters alone). Refusals: ' +
  '401 IDP_TOKEN_INVALID, 403 IDP_EMAIL_NOT_VERIFIED, 503 IDP_UNAVAILABLE when the key set cannot be fetched. A key ' +
  'id the cached key set does not hold (a key the provider has just published) fetches the set again, at most once ' +
  `per ${JWKS_REFETCH_COOLDOWN_MS / 1000} s, and the token is verified against the fresh set.`;

const ACCOUNT_RULES =
  'Account: an already linked subject signs in to its account (403 ACCOUNT_DISABLED when disabled). Otherwise a traveller ' +
  'whose own verified e-mail is this address and who has no linked subject yet (a phone traveller, or an e-mail and ' +
  'password account) gets the subject added to the same account; its password and phone are unchanged. A subject ' +
  'not linked yet with an address of company staff or an administrator: 409 IDP_STAFF_ACCOUNT_CONFLICT. An address ' +
  'held verified by an account linked to another subject or disabled, or by an account that unlinked this subject ' +
  'and has not linked it again: 409 IDP_ACCOUNT_CONFLICT and nothing is written. An address another account holds ' +
  'unverified is taken from it (its unused e-mail links for it expire; audited travellers.unverified_email_released). ' +
  'Else a new account with the verified e-mail and no phone (needsPhone true).';

const NONCE_RULES =
  "Nonce: the token's nonce claim must be the nonce of this flowId (GET /auth/customer/idp/nonce), unexpired (10 minutes) " +
  'and unused; it is consumed by the first successful attempt only. Refusals: 401 IDP_NONCE_INVALID.';

/** The docs of each route, in the order they are registered (their prose quotes the configured limits). */
// eslint-disable-next-line max-lines-per-function -- one table: the docs of each route, quoting the configured limits
export const docsFor = (config: Config) =>
  taggedOperations(TAGS, {
    signInWithIdpMobile: {
      summary: 'Sign in from the mobile app with an identity-provider ID token',
      description:
        'For the mobile apps only: a request carrying an Origin or Sec-Fetch-Site header (any browser) is refused with 403 ' +
        'IDP_BROWSER_REQUEST_REFUSED. No CSRF header is needed. The ID token audience is IDP_MOBILE_CLIENT_ID; no nonce is ' +
        'required. Returns a bearer session (channel mobile). ' +
        `${TOKEN_RULES} ${ACCOUNT_RULES} ${rateLimits(config)}`,
      responses: SIGNED_IN_BY_BEARER,
    },
    startIdpFlow: {
      summary: 'Start a web, PWA or linking flow: client id, flowId and nonce',
      description:
        'Each call starts a separate flow with its own nonce, so parallel tabs do not disturb each other. The server stores ' +
        'only the SHA-256 of the nonce, for 10 minutes. For web sign-in and linking it also sets an HttpOnly SameSite=Lax ' +
        'cookie bb_idp_<flowId> (path /api, 10 minutes) holding that fingerprint; the sign-in must come from the same ' +
        'browser. channel=pwa is answered only to the PWA origin (Origin header; 403 IDP_ORIGIN_REFUSED otherwise), with ' +
        'Access-Control-Allow-Origin for that origin and no cookie. ' +
        `Rate limit: ${config.IDP_RATE_LIMIT_PER_IP} flows per client IP per ${config.IDP_RATE_LIMIT_WINDOW_SECONDS} s. ` +
        'A HEAD sends no body, and the nonce is in the body, so it is 405 METHOD_NOT_ALLOWED (Allow: GET): no flow ' +
        'started, no cookie set, nothing counted against the rate limit.',
      responses: answers(200, 'A new flow', NonceResponse, [400, 403, 405, 429]),
    },
    signInWithIdpWeb: {
      summary: 'Sign in on the web site with an identity-provider ID token',
      description:
        'Origin must be the canonical site (SITE_ORIGIN, default PUBLIC_ORIGIN) and Sec-Fetch-Site same-origin or same-site; ' +
        'otherwise 403 IDP_ORIGIN_REFUSED. The ID token audience is IDP_WEB_CLIENT_ID; its nonce must match the ' +
        'bb_idp_<flowId> cookie of this browser and the stored flow. Sets the access, refresh and CSRF cookies and returns ' +
        'no token in JSON. data.next is the canonical site URL of returnTo, or, while the account has no phone, ' +
        '{site}/auth/complete-phone?returnTo=<returnTo, URL-encoded, query string kept>. returnTo must be a path on the ' +
        'site starting with a single "/" (400 INVALID_RETURN_TO). ' +
        `${NONCE_RULES} ${TOKEN_RULES} ${ACCOUNT_RULES} ${rateLimits(config)}`,
      responses: answers(200, 'Signed in; session cookies set', WebSession, SIGN_IN_REFUSALS),
    },
    preflightIdpPwa: {
      summary: 'CORS preflight for the PWA sign-in',
      description:
        'Answers only the PWA origin (PWA_ORIGIN, and DEV_PWA_ORIGIN outside production) asking for POST with at most the ' +
        'Content-Type header: 204 with Access-Control-Allow-Origin set to that exact origin, Allow-Methods POST, ' +
        `Allow-Headers Content-Type, Max-Age ${PWA_PREFLIGHT_MAX_AGE_SECONDS}, and no Allow-Credentials. Anything else: ` +
        '403 IDP_ORIGIN_REFUSED without CORS headers. No other path of the API answers cross-origin requests.',
      responses: answers(204, 'Preflight accepted', undefined, [403]),
    },
    signInWithIdpPwa: {
      summary: 'Sign in from the installable web app (PWA) with an identity-provider ID token',
      description:
        'Only from the PWA origin (PWA_ORIGIN, and DEV_PWA_ORIGIN outside production). Sec-Fetch-Site must be sent: ' +
        'same-origin or same-site from either origin, cross-site only from PWA_ORIGIN itself; otherwise 403 ' +
        'IDP_ORIGIN_REFUSED. Cookies are never read here (a cookie session of the site does not count) and none are set; ' +
        'the answer is a bearer session (channel pwa). Every answer to such a caller, refusals included (a body that is ' +
        'malformed or not valid: 400, 413, 415), carries Access-Control-Allow-Origin for its origin and ' +
        'Access-Control-Expose-Headers Retry-After, X-Request-Id; other callers get none. The ID token ' +
        'audience is IDP_WEB_CLIENT_ID; its nonce must be the one of this flowId (started with channel=pwa). ' +
        `${NONCE_RULES} ${TOKEN_RULES} ${ACCOUNT_RULES} ${rateLimits(config)}`,
      responses: SIGNED_IN_BY_BEARER,
    },
    linkIdpIdentity: {
      summary: 'Link an identity-provider account to the signed-in traveller',
      description:
        'Needs a traveller session; on the web the X-CSRF-Token header must equal the CSRF cookie. Start the flow with GET ' +
        "/auth/customer/idp/nonce?channel=link; a cookie session must also present that flow's bb_idp_<flowId> cookie. The " +
        'ID token may be for the web or the mobile client. In one transaction: refused when the address belongs to staff or ' +
        'an administrator (409 IDP_STAFF_ACCOUNT_CONFLICT), when the subject is linked to another account or another ' +
        'account holds the address verified (409 IDP_ACCOUNT_CONFLICT), or when this account already has a different ' +
        'subject (409 IDP_ALREADY_LINKED). An address another account holds unverified is taken from it (its unused ' +
        'e-mail links for it expire; audited travellers.unverified_email_released). Linking the same subject again is ' +
        'harmless (alreadyLinked true), whatever holds its address now. A subject this account ' +
        "unlinked may be linked again; it then signs in here again. The account's e-mail is " +
        'set (verified) only when it has none. A session whose account is no longer active when the link runs (merged ' +
        'into another by POST /auth/customer/complete-phone meanwhile): 401 AUTH_REQUIRED, and nothing is written. ' +
        `${NONCE_RULES} ${TOKEN_RULES} ${rateLimits(config)}`,
      responses: answers(200, 'Linked', LinkResponse, SIGN_IN_REFUSALS),
    },
    unlinkIdpIdentity: {
      summary: 'Unlink the identity-provider account from the signed-in traveller',
      description:
        'Takes no body (an account has at most one linked subject). Allowed only while another way to sign in remains: a ' +
        'phone number, or a password with a verified e-mail address; otherwise 409 LAST_SIGN_IN_METHOD. Nothing linked: ' +
        '404 IDP_IDENTITY_NOT_FOUND. On the web the X-CSRF-Token header is required. The account keeps its e-mail ' +
        'address, but the unlinked subject no longer signs in to it (409 IDP_ACCOUNT_CONFLICT) until it is linked again here.',
      responses: answers(200, 'Unlinked', UnlinkResponse, [401, 403, 404, 409]),
    },
    completePhone: {
      summary: 'Add the verified phone number to the signed-in account (with a safe merge)',
      description:
        'Needs a traveller session (mobile: Authorization: Bearer; web: cookies and X-CSRF-Token). The one-time code is ' +
        'checked first (send it with POST /auth/customer/send-otp); its refusals pass through unchanged: 400 INVALID_PHONE, 400 OTP_INVALID, 400 OTP_EXPIRED, 429 OTP_TOO_MANY_ATTEMPTS, 503 OTP_UNAVAILABLE, and nothing is written. Then, in one ' +
        'transaction that also uses the code up (a refusal or a server error there leaves the code usable and nothing ' +
        'changed): a number no traveller has is added, with a new traveller profile when the account has none. A ' +
        'number of an older traveller record is merged when safe: that old account had no other way to sign in (no ' +
        'identity-provider account, no password, no verified e-mail), was active and saw the same inventory scope, and at most one of the two ' +
        'travellers (an account with its profile) has operational data (favorites, journeys, holds and seat locks, ' +
        'bookings, payments, loyalty activity, support tickets). The older profile becomes the canonical passengerId, ' +
        'what hangs on the other one moves to it and it is marked merged; everything the old account did (journeys and ' +
        'their tickets, bookings, payments, loyalty accounts and vouchers, support tickets, document shares) moves to ' +
        'this account; the old account is disabled and its sessions end; merged and needsSessionRefresh are true. Otherwise 409 ' +
        'ACCOUNT_LINK_REQUIRES_RECOVERY and nothing moves. An account that already has another number: 409 ' +
        'PHONE_ALREADY_SET. Repeating the call for the number the account has is harmless. During a maintenance window: ' +
        '503 MAINTENANCE with Retry-After, as every write but sign-in, refresh and sign-out.',
      responses: answers(200, 'Phone added', CompletePhoneResponse, SIGN_IN_REFUSALS),
    },
  });
