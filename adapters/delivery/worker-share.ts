/** Slow companies, and companies known to answer in time, remembered at most (the oldest is forgotten first). */
const MAX_SLOW_OWNERS = 10_000;
/**
 * How long an attempt of a company not yet known to answer in time may wait before its company counts as slow: a
 * burst of new companies whose endpoints never answer is told apart in a fifth of a second, not in `slowOwnerMs`.
 */
const PROBATION_MS = 200;

/**
 * Who holds the delivery workers (docs/security.md#delivery-and-limits). An attempt holds a worker until it has waited `slowMs` for its
 * answer. A company is slow while its last attempt answered after `slowOwnerMs` or one under way has waited that
 * long; slow companies together hold at most half the workers (`slowCap`), and however many attempts of theirs
 * are under way, the other companies see them as holding no more than that: the rest keep at least half. A company
 * with no answer in time on record yet (new, or forgotten) is on probation: it counts as slow once an attempt of its
 * has waited PROBATION_MS, so a burst of new companies whose endpoints never answer is told apart in a fifth of a
 * second rather than in `slowOwnerMs`. (Holding new companies to a share of their own was tried: it made a new
 * healthy partner wait for the slow ones' answers instead.)
 */
export class WorkerShare {
  /** When each attempt under way started (ms), and for which company. */
  private readonly startedAt = new Map<number, number>();
  private readonly ownerOf = new Map<number, string>();
  /** Companies whose last attempt answered slowly (kept until one answers in time; bounded). */
  private readonly slowOwners = new Set<string>();
  /** Companies whose last attempt answered in time (bounded): they get `slowOwnerMs`, the others PROBATION_MS. */
  private readonly timelyOwners = new Set<string>();
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
    const timely = ms < this.slowOwnerMs;
    remember(timely ? this.timelyOwners : this.slowOwners, owner);
    (timely ? this.slowOwners : this.timelyOwners).delete(owner);
  }

  /** How long an attempt of `owner` may wait before its company counts as slow. */
  private patienceMs(owner: string): number {
    return this.timelyOwners.has(owner) ? this.slowOwnerMs : Math.min(PROBATION_MS, this.slowOwnerMs);
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
    for (const [id, started] of this.startedAt) {
      for (const after of [this.patienceMs(this.ownerOf.get(id)!), this.slowMs]) {
        const left = started + after - t;
        if (left > 0 && (soonest === undefined || left < soonest)) soonest = left;
      }
    }
    return soonest;
  }

  private slowNow(): Set<string> {
    const t = performance.now();
    const slow = new Set(this.slowOwners);
    for (const [id, started] of this.startedAt) {
      const owner = this.ownerOf.get(id)!;
      if (started <= t - this.patienceMs(owner)) slow.add(owner);
    }
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

/** Adds `owner` as the newest member of a bounded set, forgetting the oldest when it is full. */
function remember(set: Set<string>, owner: string): void {
  set.delete(owner);
  if (set.size >= MAX_SLOW_OWNERS) set.delete(set.values().next().value!);
  set.add(owner);
}
