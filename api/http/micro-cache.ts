/**
 * A small per-process cache of recent answers with a short lifetime ("micro-cache"). Losing it is
 * harmless; it only spares the database identical work within a few seconds.
 *
 * An answer is fresh for `ttlMs`. For as long again it is served stale while one background load
 * replaces it (stale-while-revalidate), so a busy key never makes a caller wait for the database.
 * Identical loads in flight are shared. The cache holds at most `maxEntries` answers and, when
 * `sizeOf` is given, at most `maxBytes` of them: a flood of distinct keys cannot grow a process's
 * memory past that. The oldest loads go first, as do answers too old even to serve stale; an answer
 * larger than the whole budget is answered but not kept.
 */
export class MicroCache<V> {
  /** In load order (a stored key moves to the end), so the oldest come first. */
  private readonly entries = new Map<string, { value: V; loadedAt: number; bytes: number }>();
  private readonly loading = new Map<string, Promise<V>>();
  private bytes = 0;
  private readonly maxEntries: number;
  private readonly maxBytes: number;
  private readonly sizeOf: (value: V) => number;

  constructor(
    private readonly ttlMs: number,
    limits: { maxEntries?: number; maxBytes?: number; sizeOf?: (value: V) => number } = {},
  ) {
    this.maxEntries = limits.maxEntries ?? 10_000;
    this.maxBytes = limits.maxBytes ?? Infinity;
    this.sizeOf = limits.sizeOf ?? (() => 0);
  }

  /** Bytes of the answers held (as `sizeOf` counts them). */
  get heldBytes(): number {
    return this.bytes;
  }

  /** How many answers are held. */
  get size(): number {
    return this.entries.size;
  }

  /** Whether answers are kept at all (a lifetime of 0 turns the cache off: every get loads). */
  get enabled(): boolean {
    return this.ttlMs > 0;
  }

  /** The cached answer for `key`, or the one `load` makes (errors are never cached). */
  async get(key: string, load: () => Promise<V>): Promise<V> {
    if (!this.enabled) return load();
    const entry = this.entries.get(key);
    const age = entry ? Date.now() - entry.loadedAt : Infinity;
    if (entry && age < this.ttlMs) return entry.value;
    if (entry && age < 2 * this.ttlMs) {
      // A failed background load leaves the stale answer until it ages out; the next caller retries.
      this.loadOnce(key, load).catch(() => undefined);
      return entry.value;
    }
    return this.loadOnce(key, load);
  }

  private loadOnce(key: string, load: () => Promise<V>): Promise<V> {
    let pending = this.loading.get(key);
    if (!pending) {
      pending = load()
        .then((value) => {
          this.store(key, value);
          return value;
        })
        .finally(() => this.loading.delete(key));
      this.loading.set(key, pending);
    }
    return pending;
  }

  private store(key: string, value: V): void {
    this.forget(key);
    const bytes = this.sizeOf(value);
    if (bytes > this.maxBytes) return;
    const now = Date.now();
    for (const [oldest, entry] of this.entries) {
      const full = this.entries.size >= this.maxEntries || this.bytes + bytes > this.maxBytes;
      if (!full && now - entry.loadedAt < 2 * this.ttlMs) break;
      this.forget(oldest);
    }
    this.entries.set(key, { value, loadedAt: now, bytes });
    this.bytes += bytes;
  }

  private forget(key: string): void {
    const entry = this.entries.get(key);
    if (!entry) return;
    this.entries.delete(key);
    this.bytes -= entry.bytes;
  }
}
