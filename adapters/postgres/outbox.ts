import { isProviderResNoInUse } from "../../domain/trips/provider-update";
import { and, asc, desc, eq, inArray, sql } from "drizzle-orm";
import {
  RECORDED_ATTEMPTS_PER_MESSAGE,
  type AttemptRecord,
  type AttemptOutcome,
  type BookingChange,
  type Channel,
  type NewOutboxMessage,
  type Outbox,
  type OutboxMessage,
  type OutboxStatus,
  type OutstandingDeliveries,
} from "../../domain/delivery/ports";
import type { Booking } from "../../domain/trips/booking";
import type { Decision } from "../../domain/trips/ports";
import { attemptValues, requeued } from "../sql/outbox-attempt";
import type { PgDb } from "./db";
import { retryingConflicts, type PgBookingRepository } from "./booking-repository";
import type { PgIntegrationRepository } from "./integration-repository";
import { bookings, companyIntegrations, deliveryAttempts, outboxMessages } from "./schema";

type Row = typeof outboxMessages.$inferSelect;

function toMessage(r: Row): OutboxMessage {
  const { leaseOwner: _owner, leaseUntil: _until, ...message } = r;
  return { ...message, channel: r.channel as Channel, status: r.status as OutboxStatus };
}

/** The claim statement's columns, aliased to the message's property names (raw SQL folds unquoted aliases). */
const MESSAGE_COLUMNS = sql.raw(
  `id, event_id AS "eventId", channel, event_type AS "eventType", transaction_id AS "transactionId", target_netid AS "targetNetid", url, body, status, ` +
    `attempts, next_attempt_at AS "nextAttemptAt", last_error AS "lastError", last_status AS "lastStatus", created_at AS "createdAt", delivered_at AS ` +
    `"deliveredAt"`,
);

/** A raw row of the claim statement: int8 columns come back as strings. */
type RawRow = Omit<OutboxMessage, "id" | "createdAt" | "deliveredAt"> & {
  id: string | number;
  createdAt: string | number;
  deliveredAt: string | number | null;
};

const fromRaw = (r: RawRow): OutboxMessage => ({
  ...r,
  id: Number(r.id),
  attempts: Number(r.attempts),
  nextAttemptAt: Number(r.nextAttemptAt),
  lastStatus: r.lastStatus === null ? null : Number(r.lastStatus),
  createdAt: Number(r.createdAt),
  deliveredAt: r.deliveredAt === null ? null : Number(r.deliveredAt),
});

export interface PgOutboxOptions {
  /** This instance's name in the leases it takes (unique among the instances sharing the database). */
  owner: string;
  /**
   * How long a claim holds unless renewed (seconds). While this instance lives it renews its claims every third
   * of that, so an attempt may take longer; a dead instance's claims pass to another after it.
   */
  leaseSeconds: number;
  /** Applies an attempt's booking change in the attempt's transaction. */
  bookings: PgBookingRepository;
  /** Not needed: the provider's current delivery URL is read in the retry's own transaction. Accepted for the wiring. */
  integrations?: PgIntegrationRepository;
  /** Told when renewing the claims failed (they are renewed again at the next turn). */
  onError?: (error: unknown) => void;
}

/** Due messages of one company (target) offered per claim: more than its share of the workers could start. */
const DUE_PER_COMPANY = 16;
/**
 * Candidates looked at per message claimed: instances claiming at once skip each other's locked rows and take the
 * next candidates, instead of all but one coming back empty.
 */
const CANDIDATES_PER_CLAIM = 4;

/**
 * The outbox in PostgreSQL, shared by several instances: `due` claims the messages it returns with a lease owned
 * by this instance (`FOR UPDATE SKIP LOCKED`, so instances never wait on each other's claims nor get the same
 * message), and an attempt is recorded only while the lease is still this instance's — one whose lease ran out
 * and was taken over by another instance writes nothing.
 */
export class PgOutbox implements Outbox {
  private readonly owner: string;
  private readonly leaseSeconds: number;
  private readonly bookings: PgBookingRepository;
  /** The messages this instance has claimed and not yet recorded, put off or given back. */
  private readonly held = new Set<number>();
  private renewal: ReturnType<typeof setInterval> | undefined;
  /** The outbox time the caller gave at the last claim, and the wall clock then: renewals continue from it. */
  private clockBase = { at: 0, wallMs: 0 };
  private readonly onError: (error: unknown) => void;

  constructor(
    private readonly db: PgDb,
    options: PgOutboxOptions,
  ) {
    this.owner = options.owner;
    this.leaseSeconds = options.leaseSeconds;
    this.bookings = options.bookings;
    this.onError = options.onError ?? (() => {});
  }

  /** Claims of this instance are renewed while it holds any. */
  private hold(ids: readonly number[]): void {
    for (const id of ids) this.held.add(id);
    if (this.held.size > 0 && !this.renewal) {
      this.renewal = setInterval(() => void this.renew().catch(this.onError), Math.max(200, (this.leaseSeconds * 1000) / 3));
      (this.renewal as unknown as { unref?: () => void }).unref?.();
    }
  }

  private letGo(ids: readonly number[]): void {
    for (const id of ids) this.held.delete(id);
    if (this.held.size === 0 && this.renewal) {
      clearInterval(this.renewal);
      this.renewal = undefined;
    }
  }

  /**
   * Moves this instance's claims forward by a lease (only those it still holds). A claim whose attempt is being
   * recorded is skipped, never waited for: the recording transaction holds its row (and clears the claim), and may
   * itself wait for a pooled connection (its prefetch) that a renewal blocked on its row would hold for good.
   */
  private async renew(): Promise<void> {
    if (this.held.size === 0) return;
    const unlocked = this.db
      .select({ id: outboxMessages.id })
      .from(outboxMessages)
      .where(and(inArray(outboxMessages.id, [...this.held]), eq(outboxMessages.leaseOwner, this.owner)))
      .for("update", { skipLocked: true });
    await this.db
      .update(outboxMessages)
      .set({ leaseUntil: this.clockBase.at + (Date.now() - this.clockBase.wallMs) / 1000 + this.leaseSeconds })
      .where(inArray(outboxMessages.id, unlocked));
  }

  /** Stops renewing claims (the instance is stopping; what it still holds passes to others after the lease). */
  close(): void {
    this.letGo([...this.held]);
  }

  /**
   * Claims up to `limit` pending messages due at `now`, earliest first, each only once no older message of its
   * booking and channel is pending; none held by an unexpired lease (this instance's included); at most
   * DUE_PER_COMPANY of one company (target), so one company's backlog cannot hide the others' (docs/security.md#delivery-and-limits). `offset`
   * is ignored: what is claimed is no longer offered. The messages this instance holds (claimed by an earlier read
   * of the same poll, or under way) count towards their company's DUE_PER_COMPANY: the successive reads of one
   * poll offer a company at most that many in all, as SQLite's pages do. (Counting only the unclaimed ones, each
   * read offered every company 16 more: 16 tarpit companies' backlogs filled all 8 reads of a poll, and a healthy
   * partner's newer message was never read.)
   */
  async due(now: number, limit: number, _offset?: number): Promise<OutboxMessage[]> {
    const rows = await this.db.execute<RawRow>(sql`
      UPDATE outbox_messages SET lease_owner = ${this.owner}, lease_until = ${now + this.leaseSeconds}::double precision
      WHERE id IN (
        SELECT c.id FROM outbox_messages c
        WHERE c.id IN (
          SELECT r.id FROM (
            SELECT m.id, m.next_attempt_at, (m.lease_until IS NULL OR m.lease_until < ${now}::double precision) AS free,
                   row_number() OVER (PARTITION BY m.target_netid ORDER BY m.next_attempt_at, m.id) AS owner_rank
            FROM outbox_messages m
            WHERE m.status = 'pending' AND m.next_attempt_at <= ${now}::double precision
              AND (m.lease_until IS NULL OR m.lease_until < ${now}::double precision OR m.lease_owner = ${this.owner})
              AND NOT EXISTS (SELECT 1 FROM outbox_messages p
                              WHERE p.transaction_id = m.transaction_id AND p.channel = m.channel
                                AND p.status = 'pending' AND p.id < m.id)) r
          WHERE r.free AND r.owner_rank <= ${DUE_PER_COMPANY}
          ORDER BY r.next_attempt_at, r.id
          LIMIT ${limit * CANDIDATES_PER_CLAIM})
          AND c.status = 'pending' AND (c.lease_until IS NULL OR c.lease_until < ${now}::double precision)
        ORDER BY c.next_attempt_at, c.id
        LIMIT ${limit}
        FOR UPDATE SKIP LOCKED)
      RETURNING ${MESSAGE_COLUMNS}`);
    const claimed = [...rows].map((r) => fromRaw(r as RawRow)).sort((a, b) => a.nextAttemptAt - b.nextAttemptAt || a.id - b.id);
    this.clockBase = { at: now, wallMs: Date.now() };
    this.hold(claimed.map((m) => m.id));
    return claimed;
  }

  async release(ids: readonly number[]): Promise<void> {
    if (ids.length === 0) return;
    this.letGo(ids);
    await this.db
      .update(outboxMessages)
      .set({ leaseOwner: null, leaseUntil: null })
      .where(and(inArray(outboxMessages.id, [...ids]), eq(outboxMessages.leaseOwner, this.owner)));
  }

  async putOff(items: ReadonlyArray<{ id: number; until: number }>): Promise<void> {
    if (items.length === 0) return;
    this.letGo(items.map((i) => i.id));
    await this.db.transaction(async (tx) => {
      for (const { id, until } of items) {
        await tx
          .update(outboxMessages)
          .set({ nextAttemptAt: until, leaseOwner: null, leaseUntil: null })
          .where(and(eq(outboxMessages.id, id), eq(outboxMessages.status, "pending"), eq(outboxMessages.leaseOwner, this.owner)));
      }
    });
  }

  async nextDueAt(): Promise<number | undefined> {
    const [row] = await this.db
      .select({ at: sql<number | null>`min(${outboxMessages.nextAttemptAt})` })
      .from(outboxMessages)
      .where(eq(outboxMessages.status, "pending"));
    return row?.at === null || row?.at === undefined ? undefined : Number(row.at);
  }

  async recordAttempt(message: OutboxMessage, outcome: AttemptOutcome, change?: BookingChange): Promise<boolean> {
    const recorded = await retryingConflicts(() =>
      this.bookings.transaction(async (tx) => {
        const values = attemptValues(outcome, outboxMessages.attempts);
        const updated = await tx
          .update(outboxMessages)
          .set({ ...values, leaseOwner: null, leaseUntil: null })
          // Still this instance's claim, and not replayed since (a replay moves the due time forward).
          .where(
            and(eq(outboxMessages.id, message.id), eq(outboxMessages.leaseOwner, this.owner), eq(outboxMessages.nextAttemptAt, message.nextAttemptAt)),
          )
          .returning({ id: outboxMessages.id });
        if (updated.length === 0) return { held: false, announced: false };
        if (outcome.exchange) {
          const e = outcome.exchange;
          await tx
            .insert(deliveryAttempts)
            .values({ messageId: message.id, at: outcome.at, ...e, requestHeaders: e.requestHeaders ? JSON.stringify(e.requestHeaders) : null });
          await tx.execute(sql`
            DELETE FROM delivery_attempts WHERE message_id = ${message.id}
              AND id < (SELECT min(id) FROM (SELECT id FROM delivery_attempts WHERE message_id = ${message.id}
                ORDER BY id DESC LIMIT ${RECORDED_ATTEMPTS_PER_MESSAGE}) kept)`);
        }
        if (!change) return { held: true, announced: false };
        try {
          const { announced } = await this.bookings.changeWithin(tx, change.ref, change.decide);
          return { held: true, announced };
        } catch (error) {
          // The number the reply gave was refused in a savepoint: the attempt is recorded without it.
          if (!change.numberTaken || !isProviderResNoInUse(error)) throw error;
          const { announced } = await this.bookings.changeWithin(tx, change.ref, change.numberTaken);
          return { held: true, announced };
        }
      }),
    );
    this.letGo([message.id]);
    if (recorded.announced) this.bookings.wake();
    return recorded.held;
  }

  async retryFailedDeliveries(
    transactionId: string,
    decide: (current: Booking | undefined, outstanding: OutstandingDeliveries) => Decision<unknown>,
    at: number,
  ): Promise<void> {
    const { announced } = await retryingConflicts(() =>
      this.bookings.transaction(async (tx) => {
        const deliveries = and(eq(outboxMessages.transactionId, transactionId), eq(outboxMessages.channel, "delivery"));
        const statuses = await tx
          .selectDistinct({ status: outboxMessages.status })
          .from(outboxMessages)
          .where(and(deliveries, inArray(outboxMessages.status, ["failed", "pending"])));
        const outstanding = { failed: statuses.some((s) => s.status === "failed"), pending: statuses.some((s) => s.status === "pending") };
        const applied = await this.bookings.changeWithin(tx, { transactionId }, (current) => decide(current, outstanding));
        const [target] = await tx
          .select({ url: companyIntegrations.deliveryUrl })
          .from(bookings)
          .innerJoin(companyIntegrations, eq(companyIntegrations.netid, bookings.providerId))
          .where(eq(bookings.transactionId, transactionId))
          .limit(1);
        const url = target?.url || undefined;
        await tx
          .update(outboxMessages)
          .set({ status: "pending", attempts: 0, nextAttemptAt: at, leaseOwner: null, leaseUntil: null, ...(url ? { url } : {}) })
          .where(and(deliveries, eq(outboxMessages.status, "failed")));
        // A delivery still retrying on its schedule is due now, with a fresh set of attempts. Its claim is left
        // alone: an instance attempting it right now records that attempt, and the next one follows the schedule.
        await tx
          .update(outboxMessages)
          .set({ attempts: 0, nextAttemptAt: at, ...(url ? { url } : {}) })
          .where(and(deliveries, eq(outboxMessages.status, "pending")));
        return applied;
      }),
    );
    if (announced) this.bookings.wake();
  }

  async requeue(id: number, at: number): Promise<void> {
    // The claim goes too: an attempt under way when the replay was asked records nothing, and the replay is sent.
    await this.db
      .update(outboxMessages)
      .set({ ...requeued(at), leaseOwner: null, leaseUntil: null })
      .where(eq(outboxMessages.id, id));
  }

  async enqueue(message: NewOutboxMessage, at: number): Promise<OutboxMessage> {
    const [row] = await this.db
      .insert(outboxMessages)
      .values({ ...message, status: "pending", attempts: 0, nextAttemptAt: at, createdAt: Math.floor(at) })
      .returning();
    return toMessage(row!);
  }

  async attemptsOf(id: number): Promise<AttemptRecord[]> {
    const rows = await this.db
      .select()
      .from(deliveryAttempts)
      .where(eq(deliveryAttempts.messageId, id))
      .orderBy(desc(deliveryAttempts.id))
      .limit(RECORDED_ATTEMPTS_PER_MESSAGE);
    return rows.map(({ id: _id, messageId: _m, requestHeaders, ...r }) => ({
      ...r,
      requestHeaders: requestHeaders ? (JSON.parse(requestHeaders) as Record<string, string>) : null,
    }));
  }

  async get(id: number): Promise<OutboxMessage | undefined> {
    const [row] = await this.db.select().from(outboxMessages).where(eq(outboxMessages.id, id)).limit(1);
    return row ? toMessage(row) : undefined;
  }

  async byEventId(eventId: string): Promise<OutboxMessage | undefined> {
    const [row] = await this.db.select().from(outboxMessages).where(eq(outboxMessages.eventId, eventId)).limit(1);
    return row ? toMessage(row) : undefined;
  }

  /** A company's messages on a channel, newest first. */
  async list(netid: string, channel: Channel, limit: number, offset: number): Promise<{ items: OutboxMessage[]; total: number }> {
    const where = and(eq(outboxMessages.targetNetid, netid), eq(outboxMessages.channel, channel));
    const [rows, [counted]] = await Promise.all([
      this.db.select().from(outboxMessages).where(where).orderBy(desc(outboxMessages.id)).limit(limit).offset(offset),
      this.db
        .select({ n: sql<number>`count(*)`.mapWith(Number) })
        .from(outboxMessages)
        .where(where),
    ]);
    return { items: rows.map(toMessage), total: counted?.n ?? 0 };
  }

  /** The newest message of a booking on a channel. */
  async latest(transactionId: string, channel: Channel): Promise<OutboxMessage | undefined> {
    const [row] = await this.db
      .select()
      .from(outboxMessages)
      .where(and(eq(outboxMessages.transactionId, transactionId), eq(outboxMessages.channel, channel)))
      .orderBy(desc(outboxMessages.id))
      .limit(1);
    return row ? toMessage(row) : undefined;
  }

  /** Every message of a booking, oldest first. */
  async forBooking(transactionId: string): Promise<OutboxMessage[]> {
    const rows = await this.db.select().from(outboxMessages).where(eq(outboxMessages.transactionId, transactionId)).orderBy(asc(outboxMessages.id));
    return rows.map(toMessage);
  }

  /** Messages not delivered, per channel and status (pending: the backlog; failed: given up). */
  async backlog(): Promise<Array<{ channel: string; status: string; count: number }>> {
    return this.db
      .select({ channel: outboxMessages.channel, status: outboxMessages.status, count: sql<number>`count(*)`.mapWith(Number) })
      .from(outboxMessages)
      .where(inArray(outboxMessages.status, ["pending", "failed"]))
      .groupBy(outboxMessages.channel, outboxMessages.status);
  }
}
