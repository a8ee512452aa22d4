import { isProviderResNoInUse } from "../../domain/trips/provider-update";
import { and, asc, desc, eq, sql } from "drizzle-orm";
import {
  RECORDED_ATTEMPTS_PER_MESSAGE,
  type AttemptExchange,
  type AttemptRecord,
  type AttemptOutcome,
  type BookingChange,
  Channel,
  IntegrationLookup,
  NewOutboxMessage,
  Outbox,
  OutboxMessage,
  OutboxStatus,
  OutstandingDeliveries,
} from "../../domain/delivery/ports";
import type { Booking } from "../../domain/trips/booking";
import type { Decision } from "../../domain/trips/ports";
import type { BookingRef } from "../../domain/trips/send-trip-request";
import { attemptValues, requeued } from "../sql/outbox-attempt";
import type { Db } from "./db";
import { deliveryAttempts, outboxMessages } from "./schema";

type Row = typeof outboxMessages.$inferSelect;

/** Due messages of one company (target) offered per read: more than its share of the workers could start. */
export const DUE_PER_COMPANY = 16;
const toMessage = (r: Row): OutboxMessage => ({ ...r, channel: r.channel as Channel, status: r.status as OutboxStatus });

/** The booking side of an attempt's record: changes made inside the transaction the outbox opens. */
export interface BookingsInTransaction {
  changeInTransaction<R>(ref: BookingRef, decide: (current: Booking | undefined) => Decision<R>): R;
  findByIdSync(transactionId: string): Booking | undefined;
}

/**
 * The outbox table, on the connection the bookings use: an attempt's record and the booking change it makes
 * share one transaction. One process serves the file, so `due` claims nothing.
 */
export class SqliteOutbox implements Outbox {
  private readonly dueStatement;

  constructor(
    private readonly db: Db,
    private readonly links: { bookings: BookingsInTransaction; integrations: IntegrationLookup },
  ) {
    // In order per booking and channel: a message waits while an older one of its booking is still pending. A company
    // offers at most DUE_PER_COMPANY messages per read, so one company's backlog cannot hide the others' (docs/security.md#delivery-and-limits).
    this.dueStatement = db.$client.query<Row & Record<string, unknown>, [number, number, number]>(`
      SELECT id, event_id AS eventId, channel, event_type AS eventType, transaction_id AS transactionId,
             target_netid AS targetNetid, url, body, status, attempts, next_attempt_at AS nextAttemptAt,
             last_error AS lastError, last_status AS lastStatus, created_at AS createdAt, delivered_at AS deliveredAt
      FROM (SELECT m.*, row_number() OVER (PARTITION BY m.target_netid ORDER BY m.next_attempt_at, m.id) AS owner_rank
            FROM outbox_messages m
            WHERE m.status = 'pending' AND m.next_attempt_at <= ?
              AND NOT EXISTS (SELECT 1 FROM outbox_messages p
                              WHERE p.transaction_id = m.transaction_id AND p.channel = m.channel
                                AND p.status = 'pending' AND p.id < m.id)) m
      WHERE m.owner_rank <= ${DUE_PER_COMPANY}
      ORDER BY m.next_attempt_at, m.id
      LIMIT ? OFFSET ?`);
  }

  async backlog(): Promise<Array<{ channel: string; status: string; count: number }>> {
    return this.db.$client
      .query<{ channel: string; status: string; count: number }, []>(
        "SELECT channel, status, count(*) AS count FROM outbox_messages WHERE status IN ('pending', 'failed') GROUP BY channel, status",
      )
      .all();
  }

  /** The insert that adds a message, as SQL text and its arguments (booking changes run it on either connection). */
  static readonly INSERT_SQL =
    "INSERT INTO outbox_messages (event_id, channel, event_type, transaction_id, target_netid, url, body, status, attempts, next_attempt_at, " +
      "created_at) VALUES (?, ?, ?, ?, ?, ?, ?, 'pending', 0, ?, ?)";

  static insertArgs(m: NewOutboxMessage, at: number): Array<string | number> {
    return [m.eventId, m.channel, m.eventType, m.transactionId, m.targetNetid, m.url, m.body, at, at];
  }

  async due(now: number, limit: number, offset = 0): Promise<OutboxMessage[]> {
    return this.dueStatement.all(now, limit, offset).map((r) => toMessage(r as Row));
  }

  async release(): Promise<void> {}

  async putOff(items: ReadonlyArray<{ id: number; until: number }>): Promise<void> {
    this.db.$client.transaction(() => {
      for (const { id, until } of items)
        this.db
          .update(outboxMessages)
          .set({ nextAttemptAt: until })
          .where(and(eq(outboxMessages.id, id), eq(outboxMessages.status, "pending")))
          .run();
    })();
  }

  async nextDueAt(): Promise<number | undefined> {
    const row = this.db
      .select({ at: sql<number>`min(${outboxMessages.nextAttemptAt})` })
      .from(outboxMessages)
      .where(eq(outboxMessages.status, "pending"))
      .get();
    return row?.at ?? undefined;
  }

  async recordAttempt(message: OutboxMessage, outcome: AttemptOutcome, change?: BookingChange): Promise<boolean> {
    return this.db.$client.transaction(() => {
      // A message replayed while this attempt was under way (requeue moved its due time) stays pending: the replay
      // is sent again, never taken for done by the earlier attempt's outcome.
      const unchanged = and(eq(outboxMessages.id, message.id), eq(outboxMessages.nextAttemptAt, message.nextAttemptAt));
      const updated = this.db.update(outboxMessages).set(attemptValues(outcome, outboxMessages.attempts)).where(unchanged).run() as unknown as {
        changes: number;
      };
      if (outcome.exchange) this.recordExchange(message.id, outcome.at, outcome.exchange);
      if (updated.changes === 0) return false;
      if (change) {
        try {
          this.links.bookings.changeInTransaction(change.ref, change.decide);
        } catch (error) {
          if (!change.numberTaken || !isProviderResNoInUse(error)) throw error;
          this.links.bookings.changeInTransaction(change.ref, change.numberTaken);
        }
      }
      return true;
    })();
  }

  /** Keeps what the attempt sent and got back, and drops the message's attempts past the newest kept. */
  private recordExchange(messageId: number, at: number, e: AttemptExchange): void {
    this.db
      .insert(deliveryAttempts)
      .values({ messageId, at, ...e, requestHeaders: e.requestHeaders ? JSON.stringify(e.requestHeaders) : null })
      .run();
    this.db.$client
      .query(
        "DELETE FROM delivery_attempts WHERE message_id = ? AND id < (SELECT min(id) FROM (SELECT id FROM delivery_attempts WHERE message_id = ? ORDER " +
          "BY id DESC LIMIT ?))",
      )
      .run(messageId, messageId, RECORDED_ATTEMPTS_PER_MESSAGE);
  }

  async attemptsOf(id: number): Promise<AttemptRecord[]> {
    const rows = this.db
      .select()
      .from(deliveryAttempts)
      .where(eq(deliveryAttempts.messageId, id))
      .orderBy(desc(deliveryAttempts.id))
      .limit(RECORDED_ATTEMPTS_PER_MESSAGE)
      .all();
    return rows.map(({ id: _id, messageId: _m, requestHeaders, ...r }) => ({
      ...r,
      requestHeaders: requestHeaders ? (JSON.parse(requestHeaders) as Record<string, string>) : null,
    }));
  }

  async enqueue(message: NewOutboxMessage, at: number): Promise<OutboxMessage> {
    const { lastInsertRowid } = this.db.$client.query(SqliteOutbox.INSERT_SQL).run(...SqliteOutbox.insertArgs(message, at));
    return (await this.get(Number(lastInsertRowid)))!;
  }

  async retryFailedDeliveries(
    transactionId: string,
    decide: (current: Booking | undefined, outstanding: OutstandingDeliveries) => Decision<unknown>,
    at: number,
  ): Promise<void> {
    this.db.$client.transaction(() => {
      const deliveries = and(eq(outboxMessages.transactionId, transactionId), eq(outboxMessages.channel, "delivery"));
      const any = (status: OutboxStatus) =>
        this.db
          .select({ id: outboxMessages.id })
          .from(outboxMessages)
          .where(and(deliveries, eq(outboxMessages.status, status)))
          .limit(1)
          .get() !== undefined;
      const outstanding = { failed: any("failed"), pending: any("pending") };
      this.links.bookings.changeInTransaction({ transactionId }, (b) => decide(b, outstanding));
      const booking = this.links.bookings.findByIdSync(transactionId);
      // The partner may have fixed its endpoint since: the messages go to the current one.
      const url = (booking && this.links.integrations.getSync(booking.providerId)?.deliveryUrl) ?? undefined;
      this.requeueFailed(transactionId, "delivery", at, url);
      // A delivery still retrying on its schedule is due now, with a fresh set of attempts.
      this.db
        .update(outboxMessages)
        .set({ attempts: 0, nextAttemptAt: at, ...(url ? { url } : {}) })
        .where(and(deliveries, eq(outboxMessages.status, "pending")))
        .run();
    })();
  }

  /** Puts a booking's failed messages on a channel back in the queue, attempts reset, aimed at `url` when given; how many. */
  requeueFailed(transactionId: string, channel: Channel, at: number, url?: string): number {
    const result = this.db
      .update(outboxMessages)
      .set({ status: "pending", attempts: 0, nextAttemptAt: at, ...(url ? { url } : {}) })
      .where(and(eq(outboxMessages.transactionId, transactionId), eq(outboxMessages.channel, channel), eq(outboxMessages.status, "failed")))
      .run() as unknown as { changes: number };
    return result.changes;
  }

  async requeue(id: number, at: number): Promise<void> {
    this.db.update(outboxMessages).set(requeued(at)).where(eq(outboxMessages.id, id)).run();
  }

  async get(id: number): Promise<OutboxMessage | undefined> {
    const row = this.db.select().from(outboxMessages).where(eq(outboxMessages.id, id)).get();
    return row ? toMessage(row) : undefined;
  }

  async byEventId(eventId: string): Promise<OutboxMessage | undefined> {
    const row = this.db.select().from(outboxMessages).where(eq(outboxMessages.eventId, eventId)).get();
    return row ? toMessage(row) : undefined;
  }

  async list(netid: string, channel: Channel, limit: number, offset: number): Promise<{ items: OutboxMessage[]; total: number }> {
    const where = and(eq(outboxMessages.targetNetid, netid), eq(outboxMessages.channel, channel));
    const items = this.db.select().from(outboxMessages).where(where).orderBy(desc(outboxMessages.id)).limit(limit).offset(offset).all().map(toMessage);
    const total =
      this.db
        .select({ n: sql<number>`count(*)` })
        .from(outboxMessages)
        .where(where)
        .get()?.n ?? 0;
    return { items, total };
  }

  async latest(transactionId: string, channel: Channel): Promise<OutboxMessage | undefined> {
    const row = this.db
      .select()
      .from(outboxMessages)
      .where(and(eq(outboxMessages.transactionId, transactionId), eq(outboxMessages.channel, channel)))
      .orderBy(desc(outboxMessages.id))
      .limit(1)
      .get();
    return row ? toMessage(row) : undefined;
  }

  async forBooking(transactionId: string): Promise<OutboxMessage[]> {
    return this.db.select().from(outboxMessages).where(eq(outboxMessages.transactionId, transactionId)).orderBy(asc(outboxMessages.id)).all().map(toMessage);
  }
}
