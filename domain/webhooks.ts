/**
 * Webhook delivery rules (SPEC "Events" leaves retries, ordering and headers open; these are our
 * decisions, documented in the README's API notes and the /api/webhooks OpenAPI descriptions).
 * Pure: the workflow, the activities and the API share them.
 */

export const SUBSCRIPTION_STATUSES = ['ACTIVE', 'DISABLED', 'DELETED'] as const;
export type SubscriptionStatus = (typeof SUBSCRIPTION_STATUSES)[number];

export const DELIVERY_STATUSES = ['PENDING', 'DELIVERED', 'FAILED', 'ABANDONED'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

export const DELIVERY_TRIGGERS = ['AUTOMATIC', 'MANUAL'] as const;

/**
 * Who makes a PENDING delivery's next attempt. RELAY: the relay's activity sends the first attempt
 * of every new delivery itself, many at once, with no workflow; RETRY: that attempt asked for a
 * retry, so a webhook-delivery workflow waits the backoff and tries again; MANUAL: a redelivery,
 * whose webhook-delivery workflow attempts at once.
 */
export const DELIVERY_ROUTES = ['RELAY', 'RETRY', 'MANUAL'] as const;
export type DeliveryRoute = (typeof DELIVERY_ROUTES)[number];
export type DeliveryTrigger = (typeof DELIVERY_TRIGGERS)[number];

/** What one HTTP attempt came to. GONE is a 410: the receiver asks us to stop. */
export const DELIVERY_ATTEMPT_OUTCOMES = ['DELIVERED', 'RETRY', 'FAILED', 'GONE'] as const;
export type AttemptOutcome = (typeof DELIVERY_ATTEMPT_OUTCOMES)[number];

/**
 * The delivery's state machine, one row per transition (shown in OpenAPI and the README):
 *   PENDING   --2xx-->                          DELIVERED
 *   PENDING   --408/429/5xx/3xx/network/timeout--> PENDING (retry after backoff or Retry-After)
 *   PENDING   --other 4xx, refused address-->   FAILED
 *   PENDING   --410-->                          FAILED (and the subscription DISABLED)
 *   PENDING   --non-2xx from a URL or secret the subscription has since changed--> PENDING (retried)
 *   PENDING   --retry window (~3 days) over-->  FAILED
 *   PENDING   --subscription disabled/deleted-> ABANDONED
 *   DELIVERED | FAILED | ABANDONED --manual redelivery--> PENDING (same delivery id)
 */
export const DELIVERY_TRANSITIONS: readonly { from: DeliveryStatus[]; on: string; to: DeliveryStatus }[] = [
  { from: ['PENDING'], on: 'a 2xx answer', to: 'DELIVERED' },
  {
    from: ['PENDING'],
    on: '408, 429, 3xx (redirects are not followed), 5xx, a network error or the 10 s timeout',
    to: 'PENDING',
  },
  { from: ['PENDING'], on: 'any other 4xx, or an address refused at delivery', to: 'FAILED' },
  { from: ['PENDING'], on: '410 Gone (the subscription becomes DISABLED)', to: 'FAILED' },
  {
    from: ['PENDING'],
    on: 'any answer but a 2xx from a URL or under a secret the subscription has changed since the request was sent (retried to the current URL with the current secret; a 410 then disables nothing)',
    to: 'PENDING',
  },
  { from: ['PENDING'], on: 'the retry window (about 3 days) ends', to: 'FAILED' },
  {
    from: ['PENDING'],
    on: 'the subscription is disabled or deleted, or no longer asks for the event',
    to: 'ABANDONED',
  },
  { from: ['DELIVERED', 'FAILED', 'ABANDONED'], on: 'a manual redelivery', to: 'PENDING' },
  {
    from: ['PENDING'],
    on: 'a manual redelivery once nothing attempts it any more (its retry workflow ended by an operator)',
    to: 'PENDING',
  },
];

/** The outcome of an HTTP status. */
export function outcomeOfStatus(status: number): AttemptOutcome {
  if (status >= 200 && status < 300) return 'DELIVERED';
  if (status === 410) return 'GONE';
  if (status === 408 || status === 429) return 'RETRY';
  if (status >= 400 && status < 500) return 'FAILED';
  return 'RETRY';
}

/** How retries are spaced: exponential from initialMs, each delay at most maxMs, for windowMs in all. */
export interface RetryPlan {
  initialMs: number;
  maxMs: number;
  windowMs: number;
}

const SECOND = 1000;
const HOUR = 3600 * SECOND;

/** 10 s, 20 s, 40 s ... up to 6 h between attempts, for 72 hours: about 23 attempts. */
export const DEFAULT_RETRY_PLAN: RetryPlan = { initialMs: 10 * SECOND, maxMs: 6 * HOUR, windowMs: 72 * HOUR };

/** The plan with every duration multiplied by `scale` (tests shorten time; production uses 1). */
export function scaledRetryPlan(plan: RetryPlan, scale: number): RetryPlan {
  return {
    initialMs: Math.max(1, Math.round(plan.initialMs * scale)),
    maxMs: Math.max(1, Math.round(plan.maxMs * scale)),
    windowMs: Math.max(1, Math.round(plan.windowMs * scale)),
  };
}

/**
 * The wait before attempt `failed + 1` after `failed` failed attempts: initialMs · 2^(failed−1),
 * spread by ±10 % (`jitter` in [0, 1)) so retries of many deliveries do not arrive together, and
 * never over maxMs: a spread wait that would pass it is folded back below it (maxMs − the excess),
 * so the waits at the cap stay spread over its last 10 %. A Retry-After the receiver sent is
 * honoured as a minimum, capped at maxMs.
 */
export function retryDelayMs(plan: RetryPlan, failed: number, jitter: number, retryAfterMs?: number): number {
  const exponential = Math.min(plan.maxMs, plan.initialMs * 2 ** Math.max(0, failed - 1));
  const jittered = exponential * (0.9 + 0.2 * jitter);
  const spread = Math.round(Math.min(jittered, 2 * plan.maxMs - jittered));
  const asked = retryAfterMs === undefined ? 0 : Math.min(plan.maxMs, retryAfterMs);
  return Math.max(1, spread, asked);
}

/**
 * Retry-After as delay-seconds or an HTTP date, in milliseconds from `now`; undefined when absent or
 * unreadable. At most the longest delay of the retry plan (DEFAULT_RETRY_PLAN.maxMs, 6 h: a plan is
 * only ever shortened, and retryDelayMs caps at its own maxMs), so a receiver asking for days or a
 * far date never hands on a wait no retry would make (nor one the delivery row cannot hold).
 */
export function retryAfterMs(header: string | null | undefined, now: number): number | undefined {
  if (!header) return undefined;
  const text = header.trim();
  const asked = /^\d+$/.test(text) ? Number(text) * SECOND : Date.parse(text) - now;
  return Number.isNaN(asked) ? undefined : Math.min(DEFAULT_RETRY_PLAN.maxMs, Math.max(0, asked));
}

/** Limits of the webhook set-up (SPEC gives none). */
export const WEBHOOK_LIMITS = {
  /** Subscriptions a company may have (ACTIVE and DISABLED). */
  subscriptionsPerCompany: 20,
  /** API keys a company may have unrevoked. */
  apiKeysPerCompany: 10,
  secretMinLength: 16,
  secretMaxLength: 256,
  urlMaxLength: 2048,
  /** Characters of a receiver's answer kept in the attempt log. */
  responseExcerptLength: 512,
  /** Manual redeliveries per API key per minute. */
  redeliveriesPerMinute: 30,
} as const;

/**
 * Cuts a receiver's answer for the attempt log to its first responseExcerptLength characters (code
 * points, so no pair is cut in two), storable as PostgreSQL text: a NUL (which text refuses)
 * becomes U+FFFD, as bytes that are not UTF-8 already do when the answer is read.
 */
export function responseExcerpt(text: string): string {
  const cut = Array.from(text).slice(0, WEBHOOK_LIMITS.responseExcerptLength).join('');
  return cut.replaceAll('\u0000', '\uFFFD');
}

/** The prefix of every company API key; the rest is 32 random bytes, base64url. */
export const API_KEY_PREFIX = 'bbk_';
/** Characters of a key kept (and shown in the list) to tell keys apart. */
export const API_KEY_SHOWN_CHARACTERS = 12;
