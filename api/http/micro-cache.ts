/**
 * A small per-process cache of recent answers with a short lifetime ("micro-cache"). Losing it is
 * harmless; it only spares the database identical work within a few seconds.
 *
 * An answer is fresh for `ttlMs`. For as long again it is served stale while one background load
 * replaces it (stale-while-revalidate), so a busy key never makes a caller wait for the database.
 * Identical loads in flight are shared. Oldest entries go first when the cache is full.
 */
export class MicroCache<V> {
  private readonly entries = new Map<string, { value: V; loadedAt: number }>();
  private readonly loading = new Map<string, Promise<V>>();

  constructor(
    private readonly ttlMs: number,
    private readonly maxEntries = 10_000,
  ) {}

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
    this.entries.delete(key);
    if (this.entries.size >= this.maxEntries) {
      const oldest = this.entries.keys().next();
      if (!oldest.done) this.entries.delete(oldest.value);
    }
    this.entries.set(key, { value, loadedAt: Date.now() });
  }
}
