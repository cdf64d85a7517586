import { createPrivateKey } from 'node:crypto';
import { z } from 'zod';
import { deploymentSettings, refuseHalfMutualTls } from './deployment.js';
import { DEFAULT_LOG_BACKLOG_MAX_MB } from './logger.js';
import { mailSenderAddress, onLocalhostDomain } from './mail-sender.js';

/**
 * The one place that reads the environment. Every setting is listed (with its default) in
 * .env.example; a bad value stops the process at start-up with a message naming the setting.
 *
 * Over 400 lines on purpose: it is one schema of about a hundred settings, each with its doc
 * comment, and the start-up refusals that read them together. Split by topic, the refusals of
 * production (refuseUnsafeProduction) would have to reach into every part; the rules with a life of
 * their own already live beside it (deployment.ts, mail-sender.ts, logger.ts).
 */
const booleanFlag = z
  .enum(['true', 'false', '1', '0'])
  .transform((value) => value === 'true' || value === '1');

/** A whole-number setting: at least `min`, at most `max` when there is one, `default` when unset. */
function wholeNumber(range: { min: number; max?: number; default: number }) {
  const atLeast = z.coerce.number().int().min(range.min);
  return (range.max === undefined ? atLeast : atLeast.max(range.max)).default(range.default);
}

/**
 * An origin browsers send and links start with: http or https, a host, and nothing after them but an
 * optional "/". `z.string().url()` alone takes "bus.example:443" (a URL whose scheme is the host, origin
 * the opaque "null"), "javascript:..." or a path that links built from the origin would silently drop.
 */
const httpOrigin = z.string().refine((value) => {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return false;
  }
  return (
    (url.protocol === 'http:' || url.protocol === 'https:') &&
    url.hostname !== '' &&
    url.href === `${url.origin}/`
  );
}, 'must be an http or https origin: scheme and host (and port), no path, query, fragment or user, e.g. https://bus.example');

/** Whether a PEM block is an Ed25519 private key (signing a boarding credential needs exactly that). */
function isEd25519PrivateKey(pem: string): boolean {
  try {
    return createPrivateKey(pem).asymmetricKeyType === 'ed25519';
  } catch {
    return false;
  }
}

/** The longest change time a connection may be configured with: two days, in minutes. */
const MAX_TRANSFER_MINUTES = 2 * 24 * 60;

export const ConfigSchema = z
  .object({
    NODE_ENV: z.enum(['development', 'test', 'production']).default('development'),
    PORT: wholeNumber({ min: 0, max: 65535, default: 3000 }),
    HOST: z.string().default('0.0.0.0'),
    /**
     * Reverse proxies in front of the API that append the client address to X-Forwarded-For.
     * The client IP (per-IP limits, audit rows) is the entry that many hops from the right; 0 (the
     * default) trusts no header and takes the socket's address, so a client cannot forge its IP.
     */
    TRUSTED_PROXY_HOPS: wholeNumber({ min: 0, max: 10, default: 0 }),
    /**
     * How long an API process keeps an idle kept-alive connection open, in seconds: longer than the
     * load balancer's idle timeout (AWS ALB, nginx upstream keepalive_timeout: 60 s), so the balancer
     * closes first and never sends a request on a connection the API is closing (a 502).
     */
    HTTP_KEEP_ALIVE_SECONDS: wholeNumber({ min: 1, max: 3600, default: 65 }),
    LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
    /**
     * Log lines a process keeps in memory while nothing reads its standard output (a collector
     * down), in MiB; lines past it are dropped and counted, and one line reports the count once
     * writing resumes, so a stalled reader cannot grow the process's memory by every request.
     */
    LOG_BACKLOG_MAX_MB: wholeNumber({ min: 1, max: 1024, default: DEFAULT_LOG_BACKLOG_MAX_MB }),
    /**
     * On SIGTERM or SIGINT, how long the API lets in-flight requests finish (new connections are
     * refused at once) and the worker lets in-flight activities finish, in milliseconds; then the
     * rest is cut off and the process exits.
     */
    SHUTDOWN_GRACE_MS: wholeNumber({ min: 0, max: 600_000, default: 15_000 }),
    DATABASE_URL: z.string().url().default('postgres://postgres@127.0.0.1:54329/busbooking'),
    /**
     * Connections of one worker, or of the API on one host, whose API_PROCESSES share them
     * (config/deployment.ts `poolPerApiProcess`); about two to three per database core (6 measured
     * best on 2 cores). Every parameter of DATABASE_URL (sslmode, application_name, ...) applies.
     */
    DATABASE_POOL_MAX: wholeNumber({ min: 1, max: 200, default: 6 }),
    /**
     * How long a request waits for one of its process's pooled connections (or for a new one to
     * connect), in milliseconds; then it answers 503 SERVICE_UNAVAILABLE with Retry-After instead of
     * hanging. Generous: a pool that is merely busy hands a connection over within milliseconds.
     */
    DATABASE_POOL_ACQUIRE_TIMEOUT_MS: wholeNumber({ min: 100, max: 600_000, default: 10_000 }),
    /** API_PROCESSES and the Temporal settings (address, namespace, TLS, API key): config/deployment.ts. */
    ...deploymentSettings,
    /** Signs and verifies traveller access tokens (HS256). At least 32 characters. */
    ACCESS_TOKEN_SECRET: z.string().min(32).default('dev-only-access-token-secret-change-me-0000'),
    ACCESS_TOKEN_ISSUER: z.string().default('bus-booking'),
    ACCESS_TOKEN_AUDIENCE: z.string().default('bus-booking-customer'),
    /** Requests per minute per client IP on POST /journeys/search and GET /trips (one shared budget); 0 disables the limit. */
    SEARCH_RATE_LIMIT_PER_MINUTE: wholeNumber({ min: 0, default: 120 }),
    /** How long an identical search in the same scope is answered from memory, in seconds; 0 disables. */
    SEARCH_CACHE_SECONDS: wholeNumber({ min: 0, max: 60, default: 5 }),
    /** Memory each API process gives the search micro-cache (answers are 5-40 KB; the oldest go first). */
    SEARCH_CACHE_MAX_MB: wholeNumber({ min: 1, max: 4096, default: 64 }),
    /**
     * Minimum change time between two legs at the same stop, in minutes (at most two days, and at
     * most TRANSFER_MAX_WAIT_MINUTES: a longer minimum would never offer a connection).
     */
    TRANSFER_MIN_SAME_STOP_MINUTES: wholeNumber({ min: 0, max: MAX_TRANSFER_MINUTES, default: 20 }),
    /** Minimum change time between two stops of the same city, in minutes (the same bounds). */
    TRANSFER_MIN_SAME_CITY_MINUTES: wholeNumber({ min: 0, max: MAX_TRANSFER_MINUTES, default: 60 }),
    /** Longest wait offered between two legs, in minutes (at most two days). */
    TRANSFER_MAX_WAIT_MINUTES: wholeNumber({ min: 1, max: MAX_TRANSFER_MINUTES, default: 360 }),
    /** How long a journey quote stays valid, in minutes. */
    QUOTE_TTL_MINUTES: wholeNumber({ min: 1, max: 1440, default: 15 }),
    /** How long a journey hold keeps its seats unless the journey is confirmed, in minutes. */
    HOLD_MINUTES: wholeNumber({ min: 1, max: 120, default: 10 }),
    /** How often each worker writes overdue journey holds EXPIRED (reads and writers do it lazily too), in seconds. */
    HOLD_SWEEP_SECONDS: wholeNumber({ min: 1, max: 3600, default: 5 }),
    /** How long a seat lock (POST /seat-locks) keeps its seats for POST /bookings, in minutes. */
    SEAT_LOCK_MINUTES: wholeNumber({ min: 1, max: 60, default: 10 }),
    /** Seats one account may hold (live seat locks and journey holds) on one trip; 0 disables the cap. */
    HELD_SEATS_MAX_PER_TRIP: wholeNumber({ min: 0, default: 10 }),
    /** Seats one account may hold across every trip (live seat locks and journey holds); 0 disables the cap. */
    HELD_SEATS_MAX_TOTAL: wholeNumber({ min: 0, default: 20 }),
    /** Unpaid live bookings (cash still to pay) one account may have; 0 disables the cap. */
    UNPAID_BOOKINGS_MAX: wholeNumber({ min: 0, default: 3 }),
    /** Favorite routes one traveller profile may save (POST /favorites); it bounds the stored rows, so never off. */
    FAVORITES_MAX: wholeNumber({ min: 1, max: 1000, default: 50 }),
    /** POST /api/seat-locks requests per account per hour; 0 disables the limit. */
    SEAT_LOCK_RATE_LIMIT_PER_HOUR: wholeNumber({ min: 0, default: 30 }),
    /** Journey and journey-order hold requests per account per hour; 0 disables the limit. */
    JOURNEY_HOLD_RATE_LIMIT_PER_HOUR: wholeNumber({ min: 0, default: 30 }),
    /** POST /api/bookings and /api/bookings/round-trip requests per account per hour; 0 disables the limit. */
    BOOKING_RATE_LIMIT_PER_HOUR: wholeNumber({ min: 0, default: 30 }),
    /**
     * A traveller may cancel an unpaid booking until this many minutes before departure
     * (POST /bookings/{id}/cancel); later, the company handles it.
     */
    BOOKING_CANCEL_CUTOFF_MINUTES: wholeNumber({ min: 0, max: 7 * 24 * 60, default: 120 }),
    /**
     * Multiplier on every duration a journey-confirmation workflow waits (hold expiry, company
     * decision window). Only NODE_ENV=test may set anything but 1: tests shorten the 15-minute
     * decision window this way while the 15..1440 rule of the settings stays as it is.
     */
    TIME_SCALE: z.coerce.number().positive().max(1).default(1),
    /** How long GET /journey-locations keeps its answer in process memory, in seconds; 0 disables the cache. */
    LOCATIONS_CACHE_SECONDS: wholeNumber({ min: 0, default: 3600 }),
    /** Lifetime of a traveller access token, in seconds. */
    TRAVELLER_ACCESS_TTL_SECONDS: wholeNumber({ min: 60, max: 86_400, default: 900 }),
    /** Lifetime of a traveller session and its refresh tokens, in days. */
    TRAVELLER_SESSION_TTL_DAYS: wholeNumber({ min: 1, max: 365, default: 30 }),
    /**
     * A used refresh token presented again within this many seconds of its first use, while none of
     * its replacements has been used, is the same refresh arriving twice (two tabs, a retried request)
     * and gets new tokens too; later it is a replay that ends the session. 0 turns the grace off.
     */
    TRAVELLER_REFRESH_REUSE_GRACE_SECONDS: wholeNumber({ min: 0, max: 60, default: 10 }),
    /** Secure flag on session cookies; only a plain-http local setup may turn it off. */
    COOKIE_SECURE: booleanFlag.default(true),
    /** Company dashboard session: absolute lifetime in hours from sign-in. */
    STAFF_SESSION_TTL_HOURS: wholeNumber({ min: 1, max: 24 * 7, default: 12 }),
    /** Company dashboard session ends after this many minutes without a request. */
    STAFF_SESSION_IDLE_MINUTES: wholeNumber({ min: 1, max: 24 * 60, default: 60 }),
    /** Dashboard sign-in attempts allowed per client IP in each window; 0 disables the limit. */
    STAFF_LOGIN_MAX_PER_IP: wholeNumber({ min: 0, default: 30 }),
    /** Failed dashboard sign-ins allowed per e-mail address from one client IP in each window (a success forgets them); 0 disables the limit. */
    STAFF_LOGIN_MAX_PER_EMAIL: wholeNumber({ min: 0, default: 10 }),
    /** Window of the dashboard sign-in limits, in minutes. */
    STAFF_LOGIN_WINDOW_MINUTES: wholeNumber({ min: 1, max: 24 * 60, default: 15 }),
    /** Administrator session: absolute lifetime in hours from sign-in. */
    ADMIN_SESSION_TTL_HOURS: wholeNumber({ min: 1, max: 24, default: 8 }),
    /** Administrator session ends after this many minutes without a request. */
    ADMIN_SESSION_IDLE_MINUTES: wholeNumber({ min: 1, max: 24 * 60, default: 30 }),
    /** Administration sign-in attempts allowed per client IP in each window; 0 disables the limit. */
    ADMIN_LOGIN_MAX_PER_IP: wholeNumber({ min: 0, default: 30 }),
    /** Failed administration sign-ins allowed per e-mail address from one client IP in each window (a success forgets them); 0 disables the limit. */
    ADMIN_LOGIN_MAX_PER_EMAIL: wholeNumber({ min: 0, default: 10 }),
    /** Wrong second-factor codes (TOTP or recovery; a wrong password setting up a first authenticator too) allowed per administrator from one client IP in each window (accepted codes never count); 0 disables the limit. */
    ADMIN_SECOND_FACTOR_MAX_ATTEMPTS: wholeNumber({ min: 0, default: 10 }),
    /** Wrong second-factor codes allowed per administrator from all addresses together in each window (against guessing from many addresses); 0 disables the limit. */
    ADMIN_SECOND_FACTOR_MAX_PER_ADMIN: wholeNumber({ min: 0, default: 50 }),
    /** Window of the administration sign-in and second-factor limits, in minutes. */
    ADMIN_LOGIN_WINDOW_MINUTES: wholeNumber({ min: 1, max: 24 * 60, default: 15 }),
    /** Issuer name authenticator apps show beside an administrator's TOTP entry. */
    ADMIN_TOTP_ISSUER: z.string().min(1).max(64).default('Bus Booking Admin'),
    /** How long a document share link can be accepted, in minutes (SPEC: 5; never longer). */
    SHARE_LINK_MINUTES: wholeNumber({ min: 1, max: 5, default: 5 }),
    /** Longest a document share recipient session lasts after accepting, in minutes (SPEC: 30). */
    SHARE_SESSION_MAX_MINUTES: wholeNumber({ min: 1, max: 30, default: 30 }),
    /** A document share recipient session ends after this many minutes without a request (SPEC: 15). */
    SHARE_SESSION_IDLE_MINUTES: wholeNumber({ min: 1, max: 15, default: 15 }),
    /** Document share requests per client IP per minute, all share routes together; 0 disables the limit. */
    SHARE_RATE_LIMIT_PER_IP_PER_MINUTE: wholeNumber({ min: 0, default: 120 }),
    /** Preview, accept, session and document requests per client IP and grant per minute; 0 disables it. */
    SHARE_RATE_LIMIT_PER_GRANT_PER_MINUTE: wholeNumber({ min: 0, default: 30 }),
    /**
     * How old the feature flags and maintenance windows an API process answers from may be, in
     * seconds: at most this often each process reads the change counters and reloads what changed.
     */
    PLATFORM_STATE_POLL_SECONDS: wholeNumber({ min: 1, max: 60, default: 2 }),
    /** POST /api/waitlist sign-ups per client IP per hour; 0 disables the limit. */
    WAITLIST_RATE_LIMIT_PER_IP_PER_HOUR: wholeNumber({ min: 0, default: 10 }),
    /** Support tickets and messages a traveller may send per hour (POST /api/support-tickets...); 0 disables. */
    SUPPORT_TICKET_RATE_LIMIT_PER_HOUR: wholeNumber({ min: 0, default: 20 }),
    /** The system Chromium for browser pages (share page tests, API docs); never downloaded. */
    CHROMIUM_PATH: z.string().default('/usr/bin/chromium'),
    /**
     * The Chromium that renders PDF documents: Debian's chromium-headless-shell, the same engine
     * without the desktop browser around it; it prints a ticket for about a third of the CPU.
     */
    PDF_CHROMIUM_PATH: z.string().default('/usr/bin/chromium-headless-shell'),
    /** Pages of the worker's warm browser that render PDFs at the same time (one browser per worker process); about one per core. */
    PDF_PAGE_POOL_SIZE: wholeNumber({ min: 1, max: 16, default: 2 }),
    /**
     * How often the analytics-rollup Temporal Schedule folds booking statistics and recounts travel
     * frequency, in minutes: the most a customer-frequency figure may lag behind the bookings.
     */
    ANALYTICS_ROLLUP_MINUTES: wholeNumber({ min: 1, max: 1440, default: 5 }),
    /** GET /dashboard/api/analytics and /analytics/advanced requests per company user per minute; 0 disables the limit. */
    ANALYTICS_RATE_LIMIT_PER_MINUTE: wholeNumber({ min: 0, default: 60 }),
    /** GET /dashboard/api/reports exports per company user per minute; 0 disables the limit. */
    REPORT_RATE_LIMIT_PER_MINUTE: wholeNumber({ min: 0, default: 20 }),
    /**
     * CSV and JSON reports one API process streams at once, each holding one of its pooled
     * connections until its last byte is written; one more is 503 SERVICE_UNAVAILABLE with
     * Retry-After. Unset: half the process's pool; never more than the pool less one (at least 1,
     * config/deployment.ts `reportStreamsPerProcess`).
     */
    REPORT_STREAMS_MAX: z.coerce.number().int().min(1).max(200).optional(),
    /**
     * A CSV or JSON report stream whose client has taken none of its bytes for this many seconds
     * (the socket does not drain) is ended: the response is cut off and its connection goes back.
     */
    REPORT_STREAM_STALL_SECONDS: wholeNumber({ min: 1, max: 3600, default: 30 }),
    /**
     * GET /driver/api/revocations requests per client IP per minute; 0 disables the limit. Generous:
     * the scanners of a whole depot may poll from behind one NAT address.
     */
    DRIVER_REVOCATIONS_RATE_LIMIT_PER_MINUTE: wholeNumber({ min: 0, default: 120 }),
    /** GET /admin/api/analytics and /admin/api/audit-log requests per administrator per minute, both routes together; 0 disables. */
    ADMIN_READ_RATE_LIMIT_PER_MINUTE: wholeNumber({ min: 0, default: 120 }),
    /** Public origin of the site, used in links the API hands out. */
    PUBLIC_ORIGIN: httpOrigin.default('http://localhost:3000'),
    /**
     * Outgoing e-mail server, e.g. smtp://user:pass@mail.example:587 or smtps://...:465. Unset: outside
     * production the messages are written to the log instead of being sent.
     */
    SMTP_URL: z.string().url().optional(),
    /**
     * Sender of traveller e-mails (verification and password recovery): one address, with or without
     * a display name (config/mail-sender.ts). The default's reserved .localhost domain is refused in
     * production.
     */
    MAIL_FROM: z
      .string()
      .refine(
        (value) => mailSenderAddress(value) !== null,
        'must be one sender address, with or without a name, e.g. Bus Booking <no-reply@bus.example>',
      )
      .default('Bus Booking <no-reply@bus-booking.localhost>'),
    /**
     * Connection, greeting and socket timeout of the SMTP client, in milliseconds; one message's whole
     * exchange gets 3 times this (SMTP_SEND_DEADLINE_FACTOR in providers/mailer.ts).
     */
    SMTP_TIMEOUT_MS: wholeNumber({ min: 100, max: 120_000, default: 10_000 }),
    /** How long an e-mail verification link stays valid, in seconds (24 hours; at most 30 days). */
    EMAIL_VERIFICATION_TTL_SECONDS: wholeNumber({ min: 1, max: 2_592_000, default: 86_400 }),
    /** How long a password recovery link stays valid, in seconds (30 minutes). */
    PASSWORD_RECOVERY_TTL_SECONDS: wholeNumber({ min: 1, max: 86_400, default: 1800 }),
    /** POST /auth/forgot-password requests per client IP per hour; 0 disables the limit. */
    PASSWORD_RECOVERY_MAX_PER_IP: wholeNumber({ min: 0, default: 20 }),
    /** POST /auth/forgot-password requests per e-mail address per hour; 0 disables the limit. */
    PASSWORD_RECOVERY_MAX_PER_EMAIL: wholeNumber({ min: 0, default: 3 }),
    /** POST /auth/customer/resend-verification requests per traveller per hour; 0 disables the limit. */
    EMAIL_VERIFICATION_RESEND_MAX_PER_HOUR: wholeNumber({ min: 0, default: 5 }),
    /** Identity provider: issuer(s) its ID tokens carry (comma-separated when it uses more than one spelling). */
    IDP_ISSUER: z.string().min(1).default('https://idp.localhost'),
    /** Identity provider: where its public signing keys (JWKS) are published. */
    IDP_JWKS_URL: z.string().url().default('https://idp.localhost/.well-known/jwks.json'),
    /** Public client id of the web site and the PWA at the identity provider (the web ID token audience). */
    IDP_WEB_CLIENT_ID: z.string().min(1).default('bus-booking-web'),
    /** Client id of the mobile apps at the identity provider (the mobile ID token audience). */
    IDP_MOBILE_CLIENT_ID: z.string().min(1).default('bus-booking-mobile'),
    /** Identity-provider sign-in attempts per client IP per window; 0 disables the limit. */
    IDP_RATE_LIMIT_PER_IP: wholeNumber({ min: 0, default: 30 }),
    /** Identity-provider sign-ins per identity subject per window; 0 disables the limit. */
    IDP_RATE_LIMIT_PER_SUBJECT: wholeNumber({ min: 0, default: 10 }),
    /** Window of the identity-provider sign-in limits, in seconds (15 minutes). */
    IDP_RATE_LIMIT_WINDOW_SECONDS: wholeNumber({ min: 1, max: 86_400, default: 900 }),
    /** Origin of the installable web app (PWA), the only origin POST /auth/customer/idp/pwa answers. */
    PWA_ORIGIN: httpOrigin.default('http://localhost:4173'),
    /** The PWA's local development origin, accepted as well outside production. */
    DEV_PWA_ORIGIN: httpOrigin.default('http://localhost:5173'),
    /** Canonical site origin the web sign-in sends travellers back to (data.next); PUBLIC_ORIGIN when unset. */
    SITE_ORIGIN: httpOrigin.optional(),
    /** Whether the public site is open (live) or still shows its coming-soon page. */
    SITE_MODE: z.enum(['coming_soon', 'live']).default('coming_soon'),
    /**
     * OTP pre-launch mode: no SMS or chat bot is contacted; only the reserved demo numbers
     * (+963900...) get a local code, any other number gets 503. Refused with SITE_MODE=live.
     * Unset: on outside production while the site is coming_soon, otherwise off.
     */
    OTP_PRELAUNCH: booleanFlag.optional(),
    /** SMS verification provider (it generates, keeps and attempt-limits the codes): base URL and API key. */
    SMS_VERIFY_URL: z.string().url().optional(),
    SMS_VERIFY_API_KEY: z.string().min(1).optional(),
    /** Chat bot API base URL and bot token (method chatapp); without a token chatapp requests go by SMS. */
    CHATAPP_API_URL: z.string().url().default('https://chatapp.invalid'),
    CHATAPP_BOT_TOKEN: z.string().min(1).optional(),
    /** Timeout of one call to the SMS provider or the chat bot API, in milliseconds. */
    OTP_PROVIDER_TIMEOUT_MS: wholeNumber({ min: 100, max: 60_000, default: 8000 }),
    /** Validity of a code this server generates (chat bot and pre-launch codes), in seconds. */
    OTP_LOCAL_CODE_TTL_SECONDS: wholeNumber({ min: 30, max: 3600, default: 300 }),
    /** Wrong entries that burn a code this server generates. */
    OTP_LOCAL_MAX_ATTEMPTS: wholeNumber({ min: 1, max: 20, default: 5 }),
    /** POST /auth/customer/send-otp requests per client IP per hour; 0 disables the limit. */
    OTP_SEND_PER_IP_PER_HOUR: wholeNumber({ min: 0, default: 30 }),
    /** POST /auth/customer/send-otp requests per phone number per hour; 0 disables the limit. */
    OTP_SEND_PER_PHONE_PER_HOUR: wholeNumber({ min: 0, default: 5 }),
    /** POST /auth/customer/verify-otp requests per client IP per hour; 0 disables the limit. */
    OTP_VERIFY_PER_IP_PER_HOUR: wholeNumber({ min: 0, default: 60 }),
    /**
     * Ed25519 private key (PKCS#8 PEM; literal \n accepted for newlines) that signs boarding
     * credentials. Set (production: from the secret store): the database keeps only its public half
     * and the key becomes the active signing key on first use, taking over from the active key (a
     * generated one has its private half erased; replaced keys stay published). Unset: a key pair is
     * generated on first use and its private half stored in signing_keys (development and tests).
     */
    SIGNING_PRIVATE_KEY_PEM: z
      .string()
      .transform((value) => value.replaceAll('\\n', '\n'))
      .refine(
        (value) => value.includes('-----BEGIN PRIVATE KEY-----') && isEd25519PrivateKey(value),
        'must be an Ed25519 PKCS#8 PEM private key',
      )
      .optional(),
    /**
     * Payment provider webhook route (POST /api/payments/webhook/{provider}): disabled answers 404;
     * development answers 501 OFFICIAL_CONTRACT_REQUIRED. Either way the payload is never read.
     * Default: disabled in production, development elsewhere; production refuses development.
     */
    PAYMENT_WEBHOOK_MODE: z.enum(['disabled', 'development']).optional(),
    /** Trips a trip-schedule workflow creates per batch (each batch one transaction). */
    SCHEDULE_BATCH_SIZE: wholeNumber({ min: 1, max: 1000, default: 200 }),
    /** How long POST /trip-schedules waits for the workflow to finish before answering 202, in milliseconds. */
    SCHEDULE_ANSWER_WAIT_MS: wholeNumber({ min: 0, max: 25_000, default: 5000 }),
    /**
     * Longest one schedule batch may run before Temporal retries it (a worker that died mid-batch
     * is noticed after this), in seconds.
     */
    SCHEDULE_BATCH_TIMEOUT_SECONDS: wholeNumber({ min: 1, max: 600, default: 30 }),
    /**
     * Company webhooks may point at http URLs and at local or private addresses (loopback, 10.x,
     * ...). Unset: on outside production, off in production; refused at start-up with
     * NODE_ENV=production, where it would let a company's URL reach the service's own network.
     */
    WEBHOOK_ALLOW_LOCAL_TARGETS: booleanFlag.optional(),
    /**
     * Deadline of one webhook delivery attempt (connect, send, answer), in milliseconds. At most
     * 15 s: a retry's attempt is a local activity limited to 30 s (workflows/steps.ts ENFORCING_STEP)
     * that also holds the target's lookup (5 s at most, WEBHOOK_LOOKUP_TIMEOUT_MS) and the database;
     * an attempt that reached that limit would be run again by Temporal and POST again.
     */
    WEBHOOK_ATTEMPT_TIMEOUT_MS: wholeNumber({ min: 1000, max: 15_000, default: 10_000 }),
    /** How long a failing webhook delivery is retried (exponential backoff), in hours. */
    WEBHOOK_RETRY_HOURS: wholeNumber({ min: 1, max: 168, default: 72 }),
    /**
     * A cash shift still open after this many hours is marked overdue (GET cash-shifts and the
     * workflow's ProcessStatus); it is never closed automatically. Fractions are for tests.
     */
    CASH_SHIFT_MAX_HOURS: z.coerce
      .number()
      .positive()
      .max(24 * 7)
      .default(24),
    /**
     * Steps (OPEN, ADJUST, CLOSE) a cash shift's workflow run takes before it continues as new:
     * Temporal refuses Updates to a run past 2000. Small values are for tests.
     */
    CASH_SHIFT_STEPS_PER_RUN: wholeNumber({ min: 2, max: 1500, default: 500 }),
  })
  .strict();

/** OTP_PRELAUNCH, WEBHOOK_ALLOW_LOCAL_TARGETS and PAYMENT_WEBHOOK_MODE are always decided once loaded (their defaults depend on NODE_ENV). */
export type Config = Omit<
  z.infer<typeof ConfigSchema>,
  'OTP_PRELAUNCH' | 'WEBHOOK_ALLOW_LOCAL_TARGETS' | 'PAYMENT_WEBHOOK_MODE'
> & {
  OTP_PRELAUNCH: boolean;
  WEBHOOK_ALLOW_LOCAL_TARGETS: boolean;
  PAYMENT_WEBHOOK_MODE: 'disabled' | 'development';
};

const knownKeys = new Set(Object.keys(ConfigSchema.shape));

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  // Empty or only blanks ("SETTING= " in an env file) is unset: its default, never Number(' ') = 0,
  // which would turn a limit off. Any other value is read exactly as written (secrets, PEM blocks).
  const relevant = Object.fromEntries(
    Object.entries(env).filter(
      ([key, value]) => knownKeys.has(key) && value !== undefined && value.trim() !== '',
    ),
  );
  const parsed = ConfigSchema.safeParse(relevant);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `  ${issue.path.join('.')}: ${issue.message}`);
    throw new Error(`Invalid configuration:\n${problems.join('\n')}`);
  }
  const data = parsed.data;
  const config = {
    ...data,
    OTP_PRELAUNCH: data.OTP_PRELAUNCH ?? (data.NODE_ENV !== 'production' && data.SITE_MODE !== 'live'),
    WEBHOOK_ALLOW_LOCAL_TARGETS: data.WEBHOOK_ALLOW_LOCAL_TARGETS ?? data.NODE_ENV !== 'production',
    PAYMENT_WEBHOOK_MODE:
      data.PAYMENT_WEBHOOK_MODE ?? (data.NODE_ENV === 'production' ? 'disabled' : 'development'),
  };
  refuseUnsafeProduction(config);
  if (config.TIME_SCALE !== 1 && config.NODE_ENV !== 'test') {
    throw new Error(
      'Invalid configuration:\n  TIME_SCALE: only NODE_ENV=test may shorten waiting times (set TIME_SCALE=1)',
    );
  }
  refuseOtpMisconfiguration(config);
  refuseHalfMutualTls(config);
  refuseContradictoryTransfers(config);
  return config;
}

/** Production never starts on a development convenience: each of these is a secret or a flag left open. */
function refuseUnsafeProduction(config: Config): void {
  if (config.NODE_ENV !== 'production') return;
  const problems = [
    config.ACCESS_TOKEN_SECRET.startsWith('dev-only') &&
      'ACCESS_TOKEN_SECRET: the development secret is refused in production',
    !config.SIGNING_PRIVATE_KEY_PEM &&
      'SIGNING_PRIVATE_KEY_PEM: production signs boarding credentials with a key from the environment',
    !config.COOKIE_SECURE && 'COOKIE_SECURE: session cookies must be Secure in production',
    config.PAYMENT_WEBHOOK_MODE === 'development' &&
      'PAYMENT_WEBHOOK_MODE: the development payment webhook is refused in production',
    config.WEBHOOK_ALLOW_LOCAL_TARGETS &&
      "WEBHOOK_ALLOW_LOCAL_TARGETS: company webhooks may not reach the service's own network in production",
    !config.PUBLIC_ORIGIN.startsWith('https://') &&
      "PUBLIC_ORIGIN: production builds its e-mail links on the site's own https origin (not the development default)",
    onLocalhostDomain(mailSenderAddress(config.MAIL_FROM)!) &&
      'MAIL_FROM: production sends from an address of its own domain (not the development .localhost default)',
  ].filter((problem): problem is string => typeof problem === 'string');
  if (problems.length > 0) throw new Error(`Invalid configuration:\n  ${problems.join('\n  ')}`);
}

/** A minimum change time longer than the longest wait offered would never let a connection be offered. */
function refuseContradictoryTransfers(config: Config): void {
  const problems = (['TRANSFER_MIN_SAME_STOP_MINUTES', 'TRANSFER_MIN_SAME_CITY_MINUTES'] as const)
    .filter((setting) => config[setting] > config.TRANSFER_MAX_WAIT_MINUTES)
    .map(
      (setting) =>
        `${setting}: ${config[setting]} is more than TRANSFER_MAX_WAIT_MINUTES (${config.TRANSFER_MAX_WAIT_MINUTES}); no such connection would ever be offered`,
    );
  if (problems.length > 0) throw new Error(`Invalid configuration:\n  ${problems.join('\n  ')}`);
}

/** Sign-in by phone must either work for real travellers or be deliberately closed; never half of each. */
function refuseOtpMisconfiguration(config: Config): void {
  const refuse = (problem: string) => {
    throw new Error(`Invalid configuration:\n  ${problem}`);
  };
  if (config.OTP_PRELAUNCH && config.SITE_MODE === 'live') {
    refuse('OTP_PRELAUNCH: the pre-launch OTP mode is refused while SITE_MODE=live');
  }
  if (config.SMS_VERIFY_URL && !config.SMS_VERIFY_API_KEY) {
    refuse('SMS_VERIFY_API_KEY: required with SMS_VERIFY_URL');
  }
  if (config.NODE_ENV === 'production' && !config.OTP_PRELAUNCH && !config.SMS_VERIFY_URL) {
    refuse('SMS_VERIFY_URL: production needs an SMS verification provider unless OTP_PRELAUNCH=true');
  }
}
