import { RateLimiterCompatibleAbstract, RateLimiterRes } from 'rate-limiter-flexible';

/**
 * How many keys one rule's fallback counts at once (a few hundred bytes each): more clients than one
 * window of any rule sees in an outage, and a few megabytes per rule however many keys arrive.
 */
export const FALLBACK_KEYS = 20_000;

interface Window {
  points: number;
  endsAt: number;
}

/**
 * What counts a rule's requests in this process while PostgreSQL cannot be reached (the shared
 * limiter's insuranceLimiter): fixed windows like the shared store's, at most `maxKeys` of them at
 * once. Once full, a request for a key it is not counting is refused (429 until the oldest window
 * ends) rather than remembered, so a flood of distinct keys (forged phone numbers, addresses across
 * IPv6 space) cannot grow the heap; keys already counted are judged as before. Windows of one rule
 * all last its duration, so the map's insertion order is the order they end in, and ended ones are
 * dropped from its front.
 */
export class FallbackLimiter extends RateLimiterCompatibleAbstract {
  override readonly keyPrefix: string;
  /** Copied from the shared limiter, which blocks nobody beyond the window and delays nothing. */
  override blockDuration = 0;
  override execEvenly = false;
  private readonly windows = new Map<string, Window>();
  private readonly points: number;
  private readonly windowMs: number;

  constructor(
    rule: { keyPrefix: string; points: number; duration: number },
    private readonly maxKeys = FALLBACK_KEYS,
  ) {
    super();
    this.keyPrefix = rule.keyPrefix;
    this.points = rule.points;
    this.windowMs = rule.duration * 1000;
  }

  /** Rejects with the key's state over the limit, as every limiter of rate-limiter-flexible does. */
  override async consume(key: string | number, points = 1): Promise<RateLimiterRes> {
    const state = this.add(String(key), points);
    // eslint-disable-next-line @typescript-eslint/only-throw-error -- the library's refusal is a RateLimiterRes
    if (state.consumedPoints > this.points) throw state;
    return state;
  }

  override async penalty(key: string | number, points = 1): Promise<RateLimiterRes> {
    return this.add(String(key), points);
  }

  /** Gives back only to a window it counts: a key it does not count gets nothing in advance. */
  override async reward(key: string | number, points = 1): Promise<RateLimiterRes> {
    const window = this.live(String(key));
    if (window) window.points -= points;
    return this.state(window ?? { points: 0, endsAt: Date.now() });
  }

  override async get(key: string | number): Promise<RateLimiterRes | null> {
    const window = this.live(String(key));
    return window ? this.state(window) : null;
  }

  override async set(key: string | number, points: number): Promise<RateLimiterRes> {
    const window = this.live(String(key)) ?? this.open(String(key));
    window.points = points;
    return this.state(window);
  }

  override block(key: string | number): Promise<RateLimiterRes> {
    return this.set(key, this.points + 1);
  }

  override async delete(key: string | number): Promise<boolean> {
    return this.windows.delete(String(key));
  }

  private add(key: string, points: number): RateLimiterRes {
    const window = this.live(key) ?? this.open(key);
    window.points += points;
    return this.state(window);
  }

  private live(key: string): Window | undefined {
    const window = this.windows.get(key);
    if (window && window.endsAt > Date.now()) return window;
    if (window) this.windows.delete(key);
    return undefined;
  }

  /** A new window for `key`; with every key taken, the refusal: 429 until the oldest window ends. */
  private open(key: string): Window {
    const now = Date.now();
    for (const [oldestKey, oldest] of this.windows) {
      if (oldest.endsAt > now) break;
      this.windows.delete(oldestKey);
    }
    const oldest = this.windows.values().next().value;
    if (oldest && this.windows.size >= this.maxKeys) {
      // eslint-disable-next-line @typescript-eslint/only-throw-error -- the library's refusal is a RateLimiterRes
      throw new RateLimiterRes(0, oldest.endsAt - now, this.points + 1, false);
    }
    const window = { points: 0, endsAt: now + this.windowMs };
    this.windows.set(key, window);
    return window;
  }

  private state(window: Window): RateLimiterRes {
    const msBeforeNext = Math.max(0, window.endsAt - Date.now());
    return new RateLimiterRes(Math.max(this.points - window.points, 0), msBeforeNext, window.points, false);
  }
}
