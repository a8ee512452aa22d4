/** Slow companies remembered at most (the oldest is forgotten first). */
const MAX_SLOW_OWNERS = 10_000;

/**
 * Who holds the delivery workers (CONTRACT §21.8). An attempt holds a worker until it has waited `slowMs` for its
 * answer. A company is slow while its last attempt answered after `slowOwnerMs` or one under way has waited that
 * long; slow companies together hold at most half the workers (`slowCap`), and however many attempts of theirs
 * are under way, the other companies see them as holding no more than that: the rest keep at least half.
 */
export class WorkerShare {
  /** When each attempt under way started (ms), and for which company. */
  private readonly startedAt = new Map<number, number>();
  private readonly ownerOf = new Map<number, string>();
  /** Companies whose last attempt answered slowly (kept until one answers in time; bounded). */
  private readonly slowOwners = new Set<string>();
  readonly slowCap: number;

  constructor(
    private readonly slowMs: number,
    private readonly slowOwnerMs: number,
    concurrency: number,
  ) {
    this.slowCap = Math.max(1, Math.floor(concurrency / 2));
  }

  started(id: number, owner: string): void {
    this.startedAt.set(id, performance.now());
    this.ownerOf.set(id, owner);
  }

  ended(id: number): void {
    this.startedAt.delete(id);
    this.ownerOf.delete(id);
  }

  /** Remembers how a company's attempt answered: slow (kept, bounded) or in time (forgotten). */
  answered(owner: string, ms: number): void {
    if (ms < this.slowOwnerMs) this.slowOwners.delete(owner);
    else {
      this.slowOwners.delete(owner);
      if (this.slowOwners.size >= MAX_SLOW_OWNERS) this.slowOwners.delete(this.slowOwners.values().next().value!);
      this.slowOwners.add(owner);
    }
  }

  /** Whether `owner` is slow and the slow companies already hold their whole share. */
  slowFull(owner: string): boolean {
    return this.slowNow().has(owner) && this.held().slow >= this.slowCap;
  }

  /** Workers in use as a new attempt sees them: slow companies count for at most `slowCap`. */
  busy(): number {
    const { slow, other } = this.held();
    return other + Math.min(slow, this.slowCap);
  }

  /** Milliseconds until an attempt under way turns its company slow or gives its worker back, if any will. */
  nextTurnMs(): number | undefined {
    const t = performance.now();
    let soonest: number | undefined;
    for (const started of this.startedAt.values()) {
      for (const after of [this.slowOwnerMs, this.slowMs]) {
        const left = started + after - t;
        if (left > 0 && (soonest === undefined || left < soonest)) soonest = left;
      }
    }
    return soonest;
  }

  private slowNow(): Set<string> {
    const late = performance.now() - this.slowOwnerMs;
    const slow = new Set(this.slowOwners);
    for (const [id, started] of this.startedAt) if (started <= late) slow.add(this.ownerOf.get(id)!);
    return slow;
  }

  /** Attempts holding a worker, for slow companies and for the others. */
  private held(): { slow: number; other: number } {
    const since = performance.now() - this.slowMs;
    const slowNow = this.slowNow();
    let slow = 0;
    let other = 0;
    for (const [id, started] of this.startedAt) {
      if (started <= since) continue;
      if (slowNow.has(this.ownerOf.get(id)!)) slow++;
      else other++;
    }
    return { slow, other };
  }
}
