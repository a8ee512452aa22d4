import { and, asc, count, desc, eq, gte, lte, sql } from "drizzle-orm";
import type { Booking } from "../../domain/trips/booking";
import type { BookingListQuery, BookingRepository, BookingSummary, ChangeAnnouncer, Decision, LandingsDue } from "../../domain/trips/ports";
import type { BookingRef } from "../../domain/trips/send-trip-request";
import type { PgDb } from "./db";
import { bookingListWhere, bookingSummaryColumns } from "../sql/booking-list";
import { bookings } from "./schema";
import { TERMINAL_STATUSES_SQL } from "../sql/status-sql";
import { toBooking, toRow } from "./booking-rows";
import { GroupCommit, TransactionLost, type Applied, type Creation } from "./booking-groups";
import { insertNewBookings, newDecided, type NewDecided } from "./booking-insert";
import { isBookingConflict, readDecideWrite, type ChangeParts, type PgTx } from "./booking-change";

export interface PgBookingOptions {
  /**
   * Group commit: the changes of one event-loop turn share one transaction, a savepoint each (fewer commits under
   * load, each change waiting for its group). Off: every change is its own transaction.
   */
  groupCommit?: boolean;
}

/** A change decided this many times on a booking that had changed again meanwhile fails (500; safe to repeat). */
const MAX_CONFLICTS = 5;

const TERMINAL_SQL = sql.raw(TERMINAL_STATUSES_SQL);

/** The key two changes of the same booking (named the same way) share. */
function refKey(ref: BookingRef): string {
  return "transactionId" in ref ? `t\n${ref.transactionId}` : `r\n${ref.requesterId}\n${ref.requesterResNo}`;
}

/** A counting semaphore. */
class Slots {
  private readonly waiting: Array<() => void> = [];

  constructor(private free: number) {}

  async acquire(): Promise<void> {
    if (this.free > 0) {
      this.free--;
      return;
    }
    await new Promise<void>((resolve) => this.waiting.push(resolve));
  }

  release(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.free++;
  }
}

/**
 * Runs `attempt` (a whole transaction) again while it fails on a concurrent booking writer, at most
 * MAX_CONFLICTS times; any other error, or the last conflict, is thrown.
 */
export async function retryingConflicts<T>(attempt: () => Promise<T>): Promise<T> {
  for (let n = 1; ; n++) {
    try {
      return await attempt();
    } catch (error) {
      if (!isBookingConflict(error)) throw error;
      if (n >= MAX_CONFLICTS) throw new Error("booking changed concurrently too often", { cause: error });
    }
  }
}

/**
 * Bookings in PostgreSQL, shared by every instance: each change reads its booking under a row lock
 * (SELECT … FOR UPDATE), decides, and writes the booking and the outbox rows its announcer gives for it in one
 * transaction. An update carries a version check and an insert meets the unique (requester, requesterResNo)
 * index, so a change that lost a race with another writer is decided again on the fresh state. With
 * `groupCommit`, the changes of one event-loop turn share a transaction (see GroupCommit).
 */
export class PgBookingRepository implements BookingRepository, LandingsDue {
  private running = 0;
  /** The last change queued per booking key: this instance runs one change of a booking at a time. */
  private readonly tails = new Map<string, Promise<void>>();
  private readonly slots: Slots;
  private readonly groups: GroupCommit | undefined;
  /** What each change announces with (booking-change.ts). */
  private readonly parts: ChangeParts;

  constructor(
    private readonly db: PgDb,
    private readonly announcer: ChangeAnnouncer = { messages: () => [], wake: () => {} },
    /** Reads what the announcer's synchronous lookups need for these bookings, just before it runs. */
    private readonly prefetch: (bookings: Booking[], created: boolean) => Promise<void> = async () => {},
    options: PgBookingOptions = {},
  ) {
    // A change's transaction holds a pooled connection while its prefetch reads through the pool: with every
    // connection in such a transaction the prefetches would wait forever. One connection stays out of them (so
    // the pool needs two or more).
    this.parts = { announcer, prefetch };
    const transactions = Math.max(1, (db.$client.options.max ?? 10) - 1);
    this.slots = new Slots(transactions);
    if (options.groupCommit)
      this.groups = new GroupCommit(
        (fn) => this.transaction(fn),
        transactions,
        isBookingConflict,
        () => this.announcer.wake(),
        (tx, creations) => this.createAll(tx, creations as Array<() => NewDecided<unknown> | undefined>),
      );
  }

  /**
   * Runs `fn` in a transaction that may change bookings (`changeWithin`): at most one connection fewer than the
   * pool has run at once, so the prefetches those changes make always find a connection.
   */
  async transaction<T>(fn: (tx: PgTx) => Promise<T>): Promise<T> {
    await this.slots.acquire();
    try {
      return await this.db.transaction(fn);
    } finally {
      this.slots.release();
    }
  }

  async findById(transactionId: string): Promise<Booking | undefined> {
    const [row] = await this.db.select().from(bookings).where(eq(bookings.transactionId, transactionId)).limit(1);
    return row ? toBooking(row) : undefined;
  }

  /** LandingsDue: bookings whose flight lands soon (docs/flights.md#the-flight-status-poller), by `flight_due`'s index. */
  async landingBetween(from: number, to: number, limit: number): Promise<Booking[]> {
    const due = and(gte(bookings.flightDue, from), lte(bookings.flightDue, to));
    return (await this.db.select().from(bookings).where(due).orderBy(asc(bookings.flightDue)).limit(limit)).map(toBooking);
  }

  async findByResNo(side: "requester" | "provider", netid: string, resNo: string): Promise<Booking | undefined> {
    const [row] =
      side === "requester"
        ? await this.db
            .select()
            .from(bookings)
            .where(and(eq(bookings.requesterId, netid), eq(bookings.requesterResNo, resNo)))
            .limit(1)
        : await this.db
            .select()
            .from(bookings)
            .where(and(eq(bookings.providerId, netid), eq(bookings.providerResNo, resNo)))
            // The live booking holding the number (at most one), else the newest of the ended ones.
            .orderBy(sql`${bookings.status} IN (${TERMINAL_SQL})`, desc(bookings.submitDate), desc(bookings.transactionId))
            .limit(1);
    return row ? toBooking(row) : undefined;
  }

  async list(q: BookingListQuery): Promise<{ items: BookingSummary[]; total: number }> {
    const where = bookingListWhere(bookings, q);
    const [totalRow] = await this.db.select({ n: count() }).from(bookings).where(where);
    const rows = await this.db
      .select({
        ...bookingSummaryColumns(bookings),
        pickup: sql<string | null>`(${bookings.tripPacket}::jsonb) #>> '{trip,locations,pickup}'`,
      })
      .from(bookings)
      .where(where)
      // Transaction ids are time-ordered: they break ties between bookings submitted in the same second, later first.
      .orderBy(desc(bookings.submitDate), sql`${bookings.transactionId} COLLATE "C" DESC`)
      .limit(q.limit)
      .offset(q.offset);
    return { items: rows.map((r) => ({ ...r, pickup: r.pickup ? JSON.parse(r.pickup) : {} }) as BookingSummary), total: Number(totalRow?.n ?? 0) };
  }

  /**
   * Reads the booking under a row lock, decides, and writes the change with its announcements in one
   * transaction; decided again (bounded) when another writer got there first. The announcer is woken once a
   * commit wrote messages.
   */
  async change<R>(ref: BookingRef, decide: (current: Booking | undefined) => Decision<R>): Promise<R> {
    if (this.groups) {
      const create: Creation | undefined = "transactionId" in ref ? undefined : () => newDecided(decide);
      return (await this.groups.submit(refKey(ref), (tx, shared, tried) => this.changeWithin(tx, ref, decide, shared, tried), create)) as R;
    }
    this.running++;
    try {
      const { result, announced } = await this.oneAtATime(refKey(ref), () =>
        retryingConflicts(() => this.transaction((tx) => this.changeWithin(tx, ref, decide))),
      );
      if (announced) this.announcer.wake();
      return result;
    } finally {
      this.running--;
    }
  }

  /** Runs `fn` once every earlier call with `key` has ended (so changes of one booking do not queue on its row lock). */
  private async oneAtATime<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(key);
    let done!: () => void;
    const mine = new Promise<void>((resolve) => (done = resolve));
    const tail = previous ? previous.then(() => mine) : mine;
    this.tails.set(key, tail);
    try {
      if (previous) await previous;
      return await fn();
    } finally {
      done();
      if (this.tails.get(key) === tail) this.tails.delete(key);
    }
  }

  /** Changes being decided or committed. */
  get pendingChanges(): number {
    return this.running + (this.groups?.pending ?? 0);
  }

  /** Waits (bounded) until no change is in progress; for an orderly shutdown. */
  async drain(): Promise<void> {
    const deadline = Date.now() + 30_000;
    while (this.pendingChanges > 0 && Date.now() < deadline) await Bun.sleep(5);
  }

  /** Wakes the announcer's reader (after a commit of `changeWithin` that announced messages). */
  wake(): void {
    this.announcer.wake();
  }

  /**
   * `change`'s read–decide–write inside the caller's transaction `tx` (the outbox records an attempt and its
   * effect on the booking together). Throws BookingConflict when the booking moved under it; says whether it
   * wrote outbox rows, so the caller wakes the announcer after its commit.
   *
   * A change named by the requester's number is first decided as if no booking had it yet: when that creates
   * one (a NEW), the booking and its announcements go in with one statement that inserts nothing if the number is
   * taken after all (`insertNewBookings`); only then is the booking read, under its row lock, and decided again —
   * a resent NEW answers as before. `shared`: `tx` is a transaction other changes share and no savepoint guards
   * this one; the one statement of a new booking cannot fail but for a broken connection or a bug (and then the
   * group runs again with a savepoint each: GroupCommit), everything else runs in a savepoint of its own here.
   * `tried`: the group already tried to create it (`createAll`), which inserted nothing.
   */
  async changeWithin<R>(
    tx: PgTx,
    ref: BookingRef,
    decide: (current: Booking | undefined) => Decision<R>,
    shared = false,
    tried = false,
  ): Promise<{ result: R; announced: boolean }> {
    if (!("transactionId" in ref) && !tried) {
      const created = await this.tryCreate(tx, decide, shared);
      if (created) return created;
    }
    return shared ? tx.transaction((savepoint) => readDecideWrite(savepoint, ref, decide, this.parts)) : readDecideWrite(tx, ref, decide, this.parts);
  }

  /**
   * Decides on no booking; when that creates one, inserts it with its announcements unless the number is taken.
   * Undefined: nothing was written (the decision creates nothing, refuses, or the number is taken): read and decide.
   */
  private async tryCreate<R>(
    tx: PgTx,
    decide: (current: Booking | undefined) => Decision<R>,
    shared: boolean,
  ): Promise<{ result: R; announced: boolean } | undefined> {
    const decided = newDecided(decide);
    if (!decided) return undefined;
    try {
      const [made] = await this.createAll(tx, [() => decided]);
      return made as { result: R; announced: boolean } | undefined;
    } catch (error) {
      throw shared ? new TransactionLost("a new booking's statement failed outside a savepoint", { cause: error }) : error;
    }
  }

  /**
   * The new bookings `creations` decide, inserted with their announcements in one statement (each unless its number
   * is taken): what each applied, undefined for one that created nothing.
   */
  private async createAll(tx: PgTx, creations: Array<() => NewDecided<unknown> | undefined>): Promise<Array<Applied | undefined>> {
    const decided = creations.map((create) => create());
    const made = decided.filter((d): d is NewDecided<unknown> => d !== undefined);
    if (made.length === 0) return decided.map(() => undefined);
    await this.prefetch(made.map((d) => d.booking), true);
    const rows = made.map(({ booking, events }) => ({
      row: toRow(booking, 1),
      messages: this.announcer.messages(events, booking),
      live: this.announcer.live?.(events, booking) ?? [],
    }));
    const inserted = await insertNewBookings(tx, rows);
    const announced = new Map(made.map((d, i) => [d, rows[i].messages.length > 0]));
    return decided.map((d) => (d && inserted.has(d.booking.transactionId) ? { result: d.result, announced: announced.get(d)! } : undefined));
  }
}
