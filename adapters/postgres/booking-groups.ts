import type { PgTx } from "./booking-change";
import { NextTurn } from "../sql/next-turn";

/** What a change gives back once applied in its savepoint. */
export interface Applied {
  result: unknown;
  announced: boolean;
}

/** A change's creation of a new booking, decided before any statement; undefined when it creates none. */
export type Creation = () => unknown;

/**
 * Makes a group's creations in one statement: for each, what it applied, or undefined when it created nothing (it
 * decided no new booking, or its number was taken). Runs in the group's transaction, outside any savepoint.
 */
export type CreateMany = (tx: PgTx, creations: Creation[]) => Promise<Array<Applied | undefined>>;

/** A change waiting for a group. */
interface Queued {
  /** Changes with the same key (one booking) never share a group nor run in two groups at once. */
  key: string;
  /**
   * `shared`: runs in the group's transaction without a savepoint of its own (it adds one where it may fail).
   * `tried`: the group already tried `create` for it, which inserted nothing.
   */
  apply: (tx: PgTx, shared: boolean, tried: boolean) => Promise<Applied>;
  /** For a change that may create a booking: the creation, which the group makes with its other ones at once. */
  create?: Creation;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
  /** Times it met a concurrent writer and was queued again. */
  conflicts: number;
  /** Runs in a savepoint of its own (after a group failed on a statement run without one). */
  isolated: boolean;
}

/**
 * Thrown by a change when a statement it ran outside any savepoint failed: the transaction it shares is lost (every
 * later statement would fail and COMMIT would roll back), not just the change.
 */
export class TransactionLost extends Error {}

/** At most this many changes share one transaction. */
const MAX_GROUP = 64;
/** A change that met a concurrent writer this many times fails (500; safe to repeat). */
const MAX_CONFLICTS = 5;

/** SQLSTATEs after which a whole transaction may simply run again: deadlock detected, serialization failure. */
const RETRYABLE = new Set(["40P01", "40001"]);

function retryable(error: unknown): boolean {
  for (let e = error, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    if (RETRYABLE.has(String((e as { errno?: unknown }).errno))) return true;
  }
  return false;
}

/**
 * Group commit for booking changes on PostgreSQL: the changes asked for in one turn of the event loop share ONE
 * transaction (one commit, one WAL flush), each in its own savepoint so a failing change rolls back alone.
 * Several groups may be in flight on different pooled connections; a change whose booking is in a group in
 * flight waits for that group, so one booking is never in two groups. A change that met another instance's
 * writer (a conflict) is queued again and decided on the fresh state; a group that deadlocked with another
 * instance's group runs again.
 */
export class GroupCommit {
  private queue: Queued[] = [];
  private groups = 0;
  private readonly inFlight = new Set<string>();
  private readonly flushes = new NextTurn(() => this.flush());

  constructor(
    /** Runs a transaction on a pooled connection. */
    private readonly transaction: <T>(fn: (tx: PgTx) => Promise<T>) => Promise<T>,
    /** Groups in flight at most. */
    private readonly maxGroups: number,
    /** Whether an error is a conflict with a concurrent writer (the change is decided again). */
    private readonly isConflict: (error: unknown) => boolean,
    /** Called after a commit that wrote outbox messages. */
    private readonly announced: () => void,
    /** Makes the group's new bookings at once, before its other changes. */
    private readonly createMany: CreateMany = async (_tx, creations) => creations.map(() => undefined),
  ) {}

  /** Applies a change in the next group; resolves with its result once that group has committed. */
  submit(key: string, apply: Queued["apply"], create?: Creation): Promise<unknown> {
    return new Promise((resolve, reject) => {
      this.queue.push({ key, apply, resolve, reject, conflicts: 0, isolated: false, create });
      this.flushes.schedule();
    });
  }

  /** Changes queued or in a group not yet committed. */
  get pending(): number {
    return this.queue.length + this.inFlight.size;
  }

  private flush(): void {
    // Bounded: each round starts a group or stops.
    while (this.groups < this.maxGroups && this.queue.length > 0) {
      const group = this.take();
      if (group.length === 0) break;
      this.groups++;
      void this.commit(group).finally(() => {
        this.groups--;
        for (const change of group) this.inFlight.delete(change.key);
        if (this.queue.length > 0) this.flushes.schedule();
      });
    }
  }

  /** Takes up to MAX_GROUP queued changes of distinct bookings none of whose is in flight; the rest stay in order. */
  private take(): Queued[] {
    const group: Queued[] = [];
    const waiting: Queued[] = [];
    let next = 0;
    for (; next < this.queue.length && group.length < MAX_GROUP; next++) {
      const change = this.queue[next];
      if (this.inFlight.has(change.key)) waiting.push(change);
      else {
        this.inFlight.add(change.key);
        group.push(change);
      }
    }
    this.queue = [...waiting, ...this.queue.slice(next)];
    // One lock order for every instance's groups: fewer deadlocks between them.
    return group.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  }

  private async commit(group: Queued[]): Promise<void> {
    let outcomes: Array<{ ok: true; applied: Applied } | { ok: false; error: unknown }>;
    try {
      outcomes = await this.transaction(async (tx) => {
        const out: typeof outcomes = new Array(group.length);
        // The group's new bookings first, all in one statement that cannot fail (no savepoint: two round trips fewer
        // a booking, and one statement for all); a change it created nothing for runs as any other, below.
        const creating = group.flatMap((change, i) => (change.create && !change.isolated ? [i] : []));
        if (creating.length > 0) {
          let made: Array<Applied | undefined>;
          try {
            made = await this.createMany(tx, creating.map((i) => group[i].create!));
          } catch (error) {
            throw new TransactionLost("the new bookings' statement failed outside a savepoint", { cause: error });
          }
          creating.forEach((i, j) => {
            const applied = made[j];
            if (applied) out[i] = { ok: true, applied };
          });
        }
        for (const [i, change] of group.entries()) {
          if (out[i]) continue;
          // Any other statement a change runs, it runs in a savepoint.
          try {
            const applied = change.isolated
              ? await tx.transaction((savepoint) => change.apply(savepoint, false, false))
              : await change.apply(tx, true, change.create !== undefined);
            out[i] = { ok: true, applied };
          } catch (error) {
            // A statement outside any savepoint failed: roll the transaction back whole (below).
            if (error instanceof TransactionLost) throw error;
            out[i] = { ok: false, error };
          }
        }
        return out;
      });
    } catch (error) {
      if (error instanceof TransactionLost) {
        // Nothing of the group is durable: every change runs again, each in a savepoint (the failing one fails alone).
        for (const change of [...group].reverse()) {
          change.isolated = true;
          this.queue.unshift(change);
        }
        return;
      }
      // Nothing of the group is durable. A deadlock with another instance's group: the group runs again.
      for (const change of group) {
        if (retryable(error) && ++change.conflicts < MAX_CONFLICTS) this.queue.unshift(change);
        else change.reject(error);
      }
      return;
    }
    let announced = false;
    group.forEach((change, i) => {
      const outcome = outcomes[i];
      if (outcome.ok) {
        change.resolve(outcome.applied.result);
        announced ||= outcome.applied.announced;
      } else if (!this.isConflict(outcome.error)) change.reject(outcome.error);
      else if (++change.conflicts < MAX_CONFLICTS) this.queue.unshift(change);
      else change.reject(new Error("booking changed concurrently too often", { cause: outcome.error }));
    });
    if (announced) this.announced();
  }
}
