import { TooManyRequestsError } from "../errors";

/**
 * The per-company bounds of the stores a company's requests grow besides its bookings (docs/security.md#per-company-store-bounds): the live
 * event log and the stored network quotes. Past a bound the request that would grow the store is 429 with
 * Retry-After and a code naming the bound; other companies' writes go on.
 */
export interface StoreBounds {
  /** Bytes of live event bodies a company's changes may keep over the log's retention window (25 h). */
  liveEventBytes: number;
  /** Network quotes a company may store per hour. */
  quotesPerHour: number;
  /** The largest network quote stored, in bytes (its stored JSON). */
  quoteMaxBytes: number;
  /** Bytes of network quotes a company may keep (every quote it made within the time quotes are kept). */
  quoteKeptBytes: number;
}

/**
 * The bounds docs/security.md#per-company-store-bounds sets: 50 MB of live events per retention window, 2,000 quotes an hour,
 * 256 KiB a quote, 64 MiB of quotes kept.
 */
export const STORE_BOUNDS: StoreBounds = { liveEventBytes: 50_000_000, quotesPerHour: 2000, quoteMaxBytes: 256 * 1024, quoteKeptBytes: 64 * 1024 * 1024 };

/** What a client is told to wait past a store bound (s): the window slides, so some room frees within an hour. */
export const STORE_BOUND_RETRY_AFTER_SECONDS = 3600;

/**
 * The UTF-8 size of a text, in bytes: counted natively, without encoding it (bodies are JSON, whose text never holds a
 * lone surrogate: JSON.stringify escapes one).
 */
export function utf8Bytes(text: string): number {
  return Buffer.byteLength(text, "utf8");
}

/** How many bytes of live event bodies a company's changes keep since a time, as stored (every instance's). */
export interface LiveEventUsage {
  usedSince(netid: string, sinceSeconds: number): Promise<number>;
}

/** How long a company's stored usage is trusted before it is read again (ms): other instances' writes count within it. */
const REFRESH_MS = 1000;

/**
 * A company's live event bytes over the retention window, answered synchronously (a change's live events are made
 * inside its transaction): the stored sum, read again at most every second in the background, plus what this
 * instance charged since that read. `charge` refuses (429 LIVE_EVENTS_QUOTA) a change that would pass the bound.
 */
export class LiveEventBudget {
  private readonly companies = new Map<string, { stored: number; local: number; readAt: number; reading: boolean }>();

  constructor(
    private readonly usage: LiveEventUsage,
    private readonly limitBytes: number,
    private readonly windowSeconds: number,
    private readonly nowMs: () => number = Date.now,
  ) {}

  /**
   * Counts `bytes` more for the company, or throws when that would pass its bound (nothing is counted then).
   * `refuse` false: counted whatever the bound (what the service records on its own, e.g. a delivery's outcome).
   */
  charge(netid: string, bytes: number, refuse = true): void {
    const entry = this.entry(netid);
    if (refuse && entry.stored + entry.local + bytes > this.limitBytes) {
      throw new TooManyRequestsError(
        STORE_BOUND_RETRY_AFTER_SECONDS,
        `Your company's live events of the last ${this.windowSeconds / 3600} h reached their bound (${this.limitBytes} bytes); retry later`,
        "LIVE_EVENTS_QUOTA",
      );
    }
    entry.local += bytes;
  }

  /** Reads the company's stored usage now (a caller that wants the bound exact). */
  async refresh(netid: string): Promise<void> {
    const entry = this.entry(netid);
    await this.read(netid, entry);
  }

  private entry(netid: string) {
    let entry = this.companies.get(netid);
    if (!entry) {
      entry = { stored: 0, local: 0, readAt: 0, reading: false };
      this.companies.set(netid, entry);
    }
    if (!entry.reading && this.nowMs() - entry.readAt >= REFRESH_MS) void this.read(netid, entry);
    return entry;
  }

  private async read(netid: string, entry: { stored: number; local: number; readAt: number; reading: boolean }): Promise<void> {
    entry.reading = true;
    const localBefore = entry.local;
    try {
      const stored = await this.usage.usedSince(netid, Math.floor(this.nowMs() / 1000) - this.windowSeconds);
      // What was charged before the read is in the stored sum now (or was rolled back); what came after is not yet.
      entry.stored = stored;
      entry.local = Math.max(0, entry.local - localBefore);
      entry.readAt = this.nowMs();
      if (this.companies.size > 10_000) this.companies.clear();
    } catch {
      entry.readAt = this.nowMs();
    } finally {
      entry.reading = false;
    }
  }
}
