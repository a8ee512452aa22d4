import { and, asc, count, desc, gte, lte, sql } from "drizzle-orm";
import type { Booking } from "../../domain/trips/booking";
import { TERMINAL_STATUSES_SQL as TERMINAL_SQL } from "../sql/status-sql";
import type { BookingListQuery, BookingRepository, BookingSummary, BookingWrite, ChangeAnnouncer, Decision, LandingsDue } from "../../domain/trips/ports";
import type { BookingRef } from "../../domain/trips/send-trip-request";
import type { Statement } from "bun:sqlite";
import type { Db } from "./db";
import { bookingListWhere, bookingSummaryColumns } from "../sql/booking-list";
import { bookings } from "./schema";
import type { BookingWriter, WriteStep } from "./booking-writer";
import { historyCapped } from "../../domain/trips/booking-bounds";
import type { BookingsInTransaction } from "./outbox";
import { NextTurn } from "../sql/next-turn";
import { BOOKING_COLUMNS, BOOKING_WRITER_STATEMENTS, toBooking, type BookingRow } from "./booking-rows";
import { announcementSteps, bookingSteps, nextRow, runSteps, writeError } from "./booking-change";
import { PROVIDER_RES_NO_TAKEN } from "./unique-keys";


/** A change waiting for the next group commit. */
interface PendingChange {
  ref: BookingRef;
  decide: (current: Booking | undefined) => Decision<unknown>;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
  /** Times the booking writer found it decided on a stale booking. */
  conflicts?: number;
}

/** At most this many changes share one transaction (a bound on how long one commit holds the thread). */
const MAX_GROUP = 256;
/** Groups sent to the booking writer and not yet committed; more changes wait (and so form bigger groups). */
const MAX_GROUPS_IN_FLIGHT = 2;
/** A change decided this many times on a booking that had changed again meanwhile fails (500; safe to repeat). */
const MAX_CONFLICTS = 5;

/** The key two changes of the same booking (named the same way) share. */
function refKey(ref: BookingRef): string {
  return "transactionId" in ref ? `t\n${ref.transactionId}` : `r\n${ref.requesterId}\n${ref.requesterResNo}`;
}

/** Changes decided for one writer transaction: each with its statements and what to answer once committed. */
type Held = { hold?: BookingWrite["hold"] };
/** What one change of a group came to: its result, or the error its caller gets. */
type ChangeOutcome = { ok: true; value: unknown } | { ok: false; error: unknown };
type WriterGroup = Array<{ change: PendingChange; key: string; result: unknown; steps: WriteStep[]; wake: boolean; providerResNo: string | null } & Held>;

/**
 * Bookings in SQLite: one row per booking, every change decided and written in one IMMEDIATE transaction,
 * with the outbox rows its announcer gives for it.
 */
export class SqliteBookingRepository implements BookingRepository, LandingsDue, BookingsInTransaction {
  // The group commit's hot path in plain prepared bun:sqlite statements (drizzle's row mapping costs on every call);
  // the inserts and updates are the statements the booking writer runs, with the same arguments.
  private readonly byId: Statement<BookingRow, [string]>;
  private readonly rowByResNo: Statement<BookingRow, [string, string]>;
  private readonly rowByProviderResNo: Statement<BookingRow, [string, string]>;
  /** BOOKING_WRITER_STATEMENTS prepared on this connection, for the changes it writes itself (booking-change.ts). */
  private readonly statements: Statement[];
  private readonly savepoint: Statement;
  private readonly release: Statement;
  private readonly rollbackTo: Statement;
  /**
   * A group's IMMEDIATE transaction, made once: bun:sqlite's transaction wrapper (not drizzle's, which builds a
   * database object with a query builder per table on every call) around the group's savepoints.
   */
  private readonly groupTransaction: { immediate(group: PendingChange[], outcomes: ChangeOutcome[]): void };

  constructor(
    private readonly db: Db,
    private readonly announcer: ChangeAnnouncer = { messages: () => [], wake: () => {} },
  ) {
    // Every column is plain TEXT or INTEGER, so raw rows aliased to the property names are what drizzle returns.
    const sqlite = db.$client;
    const list = BOOKING_COLUMNS.map(([key, column]) => `"${column.name}" AS "${key}"`).join(", ");
    // Read twice per change the offer watch makes (its look, then the change's own read): plain, like the group commit's.
    this.byId = sqlite.prepare(`SELECT ${list} FROM bookings WHERE transaction_id = ?`);
    this.rowByResNo = sqlite.prepare(`SELECT ${list} FROM bookings WHERE requester_id = ? AND requester_res_no = ?`);
    // The live booking holding the number (at most one), else the newest of the ended ones.
    this.rowByProviderResNo = sqlite.prepare(
      `SELECT ${list} FROM bookings WHERE provider_id = ? AND provider_res_no = ? ORDER BY status IN (${TERMINAL_SQL}) ASC, submit_date DESC, rowid ` +
        `DESC LIMIT 1`,
    );
    this.statements = BOOKING_WRITER_STATEMENTS.map((text) => sqlite.prepare(text));
    this.savepoint = sqlite.prepare("SAVEPOINT booking_change");
    this.release = sqlite.prepare("RELEASE booking_change");
    this.rollbackTo = sqlite.prepare("ROLLBACK TO booking_change");
    this.groupTransaction = sqlite.transaction((group: PendingChange[], outcomes: ChangeOutcome[]) => {
      for (const change of group) outcomes.push(this.inSavepoint(change));
    });
  }

  async findById(transactionId: string): Promise<Booking | undefined> {
    return this.findByIdSync(transactionId);
  }

  async findByResNo(side: "requester" | "provider", netid: string, resNo: string): Promise<Booking | undefined> {
    const row = side === "requester" ? this.rowByResNo.get(netid, resNo) : this.rowByProviderResNo.get(netid, resNo);
    return row ? toBooking(row) : undefined;
  }

  /** LandingsDue: bookings whose flight lands soon (docs/flights.md#the-flight-status-poller), by `flight_due`'s index. */
  async landingBetween(from: number, to: number, limit: number): Promise<Booking[]> {
    const due = and(gte(bookings.flightDue, from), lte(bookings.flightDue, to));
    return (await this.db.select().from(bookings).where(due).orderBy(asc(bookings.flightDue)).limit(limit)).map(toBooking);
  }

  /** For use inside a synchronous transaction. */
  findByIdSync(transactionId: string): Booking | undefined {
    const row = this.byId.get(transactionId);
    return row ? toBooking(row) : undefined;
  }

  async list(q: BookingListQuery): Promise<{ items: BookingSummary[]; total: number }> {
    const where = bookingListWhere(bookings, q);
    const total = this.db.select({ n: count() }).from(bookings).where(where).get()?.n ?? 0;
    const rows = this.db
      .select({
        ...bookingSummaryColumns(bookings),
        // Only the pickup of the stored trip: SQLite reads it out of the JSON without handing the rest over.
        pickup: sql<string | null>`json_extract(${bookings.tripPacket}, '$.trip.locations.pickup')`,
      })
      .from(bookings)
      .where(where)
      // rowid breaks ties between bookings submitted in the same second: later insert first.
      .orderBy(desc(bookings.submitDate), desc(sql`rowid`))
      .limit(q.limit)
      .offset(q.offset)
      .all();
    return { items: rows.map((r) => ({ ...r, pickup: r.pickup ? JSON.parse(r.pickup) : {} }) as BookingSummary), total };
  }

  /**
   * Group commit: changes asked for in the same turn of the event loop are decided and written in ONE
   * synchronous IMMEDIATE transaction, each inside its own savepoint (a failing change rolls back alone and
   * cannot poison the others), and every caller is answered only after that transaction has committed —
   * so one fsync acknowledges many bookings, and no acknowledgement ever precedes durability.
   */
  change<R>(ref: BookingRef, decide: (current: Booking | undefined) => Decision<R>): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      this.queue.push({ ref, decide, resolve: resolve as (value: unknown) => void, reject });
      this.flushes.schedule();
    });
  }

  /** Changes queued or committing (the booking writer's queue depth). */
  get pendingChanges(): number {
    return this.queue.length + this.inFlight.size;
  }

  private queue: PendingChange[] = [];
  private writer: BookingWriter | undefined;
  /** Keys of the bookings whose changes are with the writer and not yet committed. */
  private readonly inFlight = new Set<string>();
  private readonly flushes = new NextTurn(() => this.flush());

  /**
   * From now on, group commits run on the booking writer (its own connection and thread), so the event loop
   * never waits for a commit's fsync: changes are decided here against the committed bookings and sent as
   * statements with a version check; one that finds its booking changed meanwhile is decided again. The
   * announcer's outbox rows join each change's statements, as they join its transaction here.
   */
  useWriter(writer: BookingWriter): void {
    this.writer = writer;
  }

  private flush(): void {
    if (this.writer?.usable) {
      this.flushToWriter(this.writer);
      return;
    }
    const group = this.queue.splice(0, MAX_GROUP);
    if (group.length === 0) return;
    if (this.queue.length > 0) this.flushes.schedule();
    const outcomes: ChangeOutcome[] = [];
    try {
      this.groupTransaction.immediate(group, outcomes);
    } catch (error) {
      // BEGIN or COMMIT failed: nothing of the group is durable, so no caller is told otherwise.
      for (const change of group) change.reject(error);
      return;
    }
    group.forEach((change, i) => {
      const outcome = outcomes[i];
      if (outcome.ok) change.resolve(outcome.value);
      else change.reject(outcome.error);
    });
  }

  private flushToWriter(writer: BookingWriter): void {
    // At most MAX_GROUPS_IN_FLIGHT groups are committing; a reply schedules the next flush.
    if (writer.inFlight >= MAX_GROUPS_IN_FLIGHT) return;
    // One read transaction for the group's lookups: after the writer's commits, the connection revalidates its
    // page cache once for all of them instead of once per lookup.
    const sqlite = this.db.$client;
    sqlite.exec("BEGIN");
    let group: WriterGroup;
    try {
      group = this.decideGroup();
    } finally {
      sqlite.exec("COMMIT");
    }
    if (group.length === 0) return;
    for (const g of group) this.inFlight.add(g.key);
    writer
      .write(group.map((g) => g.steps))
      .then(
        (outcomes) => {
          let wake = false;
          group.forEach((g, i) => {
            const outcome = outcomes[i];
            if ("ok" in outcome) {
              g.change.resolve(g.result);
              wake ||= g.wake;
            } else if ("conflict" in outcome) {
              g.change.conflicts = (g.change.conflicts ?? 0) + 1;
              if (g.change.conflicts < MAX_CONFLICTS) this.queue.unshift(g.change);
              else g.change.reject(new Error("booking changed concurrently too often"));
            } else g.change.reject(writeError(new Error(outcome.error), g, g.hold));
          });
          if (wake) this.announcer.wake();
        },
        // The group's transaction failed (or the writer is gone): nothing of it is reported done.
        (error) => group.forEach((g) => g.change.reject(error)),
      )
      .finally(() => {
        for (const g of group) this.inFlight.delete(g.key);
        if (this.queue.length > 0) this.flushes.schedule();
      });
    // The next group is decided while this one commits.
    if (this.queue.length > 0) this.flushes.schedule();
  }

  /**
   * Takes up to MAX_GROUP queued changes off the queue and decides each against its committed booking: those
   * that write become the group (their statements, with a version check for updates); the others are
   * answered or rejected at once. A change to a booking already in the group or committing stays queued, to
   * be decided on that commit's result.
   */
  private decideGroup(): WriterGroup {
    const group: WriterGroup = [];
    const waiting: PendingChange[] = [];
    const taken = new Set<string>();
    let next = 0;
    // Bounded: each queued change is looked at once, and a group holds at most MAX_GROUP.
    for (; next < this.queue.length && group.length < MAX_GROUP; next++) {
      const change = this.queue[next];
      const key = refKey(change.ref);
      if (this.inFlight.has(key) || taken.has(key)) {
        waiting.push(change);
        continue;
      }
      // Whatever fails here (the decision, the outbox rows) fails this change alone, as a rolled-back savepoint would.
      try {
        const row =
          "transactionId" in change.ref
            ? this.byId.get(change.ref.transactionId)
            : this.rowByResNo.get(change.ref.requesterId, change.ref.requesterResNo);
        const decision = historyCapped(change.decide(row ? toBooking(row) : undefined));
        // Nothing to write (a repeated request): the booking it answers from is committed, so it is answered now.
        if (!decision.write) {
          change.resolve(decision.result);
          continue;
        }
        const { booking, hold } = decision.write;
        const next = nextRow(row, booking);
        const announced = announcementSteps(row, next, decision.write, this.announcer);
        const steps = [...bookingSteps(row, next, decision.write), ...announced.steps];
        const wake = announced.wake;
        taken.add(key);
        group.push({ change, key, result: decision.result, steps, wake, providerResNo: booking.providerResNo, hold });
      } catch (error) {
        change.reject(error);
      }
    }
    this.queue = [...waiting, ...this.queue.slice(next)];
    return group;
  }

  /** Waits (bounded) until no change is queued or committing; for an orderly shutdown. */
  async drain(): Promise<void> {
    const deadline = Date.now() + 30_000;
    while ((this.queue.length > 0 || this.inFlight.size > 0) && Date.now() < deadline) await Bun.sleep(5);
  }

  private inSavepoint(change: PendingChange): ChangeOutcome {
    // One retry covers a writer in another process taking the same requesterResNo between our read and write.
    for (let attempt = 0; ; attempt++) {
      this.savepoint.run();
      try {
        const value = this.decideAndWrite(change.ref, change.decide);
        this.release.run();
        return { ok: true, value };
      } catch (error) {
        // SQLITE_FULL and I/O errors roll the whole transaction back: the group fails with that error.
        if (!this.db.$client.inTransaction) throw error;
        this.rollbackTo.run();
        this.release.run();
        if (attempt === 0 && error instanceof Error && /UNIQUE constraint failed: bookings/.test(error.message) && !PROVIDER_RES_NO_TAKEN.test(error.message))
          continue;
        return { ok: false, error };
      }
    }
  }

  /**
   * The same read–decide–write as `change`, for a caller that already holds a transaction (the delivery
   * worker records an attempt and its effect on the booking together).
   */
  changeInTransaction<R>(ref: BookingRef, decide: (current: Booking | undefined) => Decision<R>): R {
    return this.decideAndWrite(ref, decide);
  }

  private decideAndWrite<R>(ref: BookingRef, decide: (current: Booking | undefined) => Decision<R>): R {
    const row = "transactionId" in ref ? this.byId.get(ref.transactionId) : this.rowByResNo.get(ref.requesterId, ref.requesterResNo);
    const decision = historyCapped(decide(row ? toBooking(row) : undefined));
    if (!decision.write) return decision.result;
    const next = nextRow(row, decision.write.booking);
    runSteps(this.statements, bookingSteps(row, next, decision.write), decision.write);
    const { steps, wake } = announcementSteps(row, next, decision.write, this.announcer);
    runSteps(this.statements, steps, decision.write);
    if (wake) this.announcer.wake();
    return decision.result;
  }
}
