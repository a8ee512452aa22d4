/**
 * A bounded cache of answers, each kept for its own time to live: at most `max` entries, the least recently used
 * going first when a new one would pass the bound. Time is the caller's clock (ms), so tests move it.
 */
export class AnswerCache<T> {
  private readonly entries = new Map<string, { value: T; until: number }>();

  constructor(
    private readonly max: number,
    private readonly now: () => number = Date.now,
  ) {}

  get size(): number {
    return this.entries.size;
  }

  /** The answer kept for `key`, when it has not expired (a hit becomes the most recently used). */
  get(key: string): T | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    this.entries.delete(key);
    if (entry.until <= this.now()) return undefined;
    this.entries.set(key, entry);
    return entry.value;
  }

  /** Keeps `value` for `ttlMs`; the oldest entries go while the cache is over its bound. */
  set(key: string, value: T, ttlMs: number): void {
    this.entries.delete(key);
    this.entries.set(key, { value, until: this.now() + ttlMs });
    while (this.entries.size > this.max) this.entries.delete(this.entries.keys().next().value!);
  }
}
