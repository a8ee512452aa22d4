import { and, asc, desc, eq, sql } from "drizzle-orm";
import type { AcceptTripsFrom, Integration, LuggageMode, WebhookFormat } from "../../domain/delivery/integration";
import type { Channel, IntegrationLookup, IntegrationRepository, NewOutboxMessage, Outbox, OutboxMessage, OutboxStatus, SecretSealer } from "../../domain/delivery/ports";
import { AccountCache } from "./account-repositories";
import type { Db } from "./db";
import { companyIntegrations, outboxMessages } from "./schema";

export class SqliteIntegrationRepository implements IntegrationRepository, IntegrationLookup {
  // Read twice inside every booking change (provider and requester): prepared once.
  private readonly byNetid;

  constructor(
    private readonly db: Db,
    /** Delivery passwords and webhook secrets are stored sealed. */
    private readonly secrets: SecretSealer,
  ) {
    this.byNetid = db.select().from(companyIntegrations).where(eq(companyIntegrations.netid, sql.placeholder("netid"))).prepare();
  }

  async get(netid: string): Promise<Integration | undefined> {
    return this.getSync(netid);
  }

  /** For use inside a synchronous transaction. */
  getSync(netid: string): Integration | undefined {
    const cache = AccountCache.of(this.db).fresh();
    const cached = cache.integrations.get(netid);
    if (cached !== undefined) return cached ?? undefined;
    const row = this.byNetid.get({ netid });
    return cache.remember(cache.integrations, netid, row ? Object.freeze(toIntegration(row, this.secrets)) : null) ?? undefined;
  }

  async save(i: Integration, at: number): Promise<void> {
    const values = {
      deliveryUrl: i.deliveryUrl,
      deliveryUsername: i.deliveryAuth?.username ?? null,
      deliveryPassword: i.deliveryAuth ? this.secrets.seal(i.deliveryAuth.password, secretContext("deliveryPassword", i.netid)) : null,
      luggage: i.luggage,
      webhookUrl: i.webhookUrl,
      webhookSecret: i.webhookSecret === null ? null : this.secrets.seal(i.webhookSecret, secretContext("webhookSecret", i.netid)),
      webhookFormat: i.webhookFormat,
      acceptTripsFrom: i.acceptTripsFrom,
      updatedAt: at,
    };
    this.db.insert(companyIntegrations).values({ netid: i.netid, ...values }).onConflictDoUpdate({ target: companyIntegrations.netid, set: values }).run();
    AccountCache.of(this.db).clear();
  }
}

/** Where a sealed secret belongs: its column and company (a value moved elsewhere does not open). */
export const secretContext = (column: "deliveryPassword" | "webhookSecret", netid: string) => `${column}:${netid}`;

function toIntegration(row: typeof companyIntegrations.$inferSelect, secrets: SecretSealer): Integration {
  const password = row.deliveryPassword && secrets.open(row.deliveryPassword, secretContext("deliveryPassword", row.netid));
  return {
    netid: row.netid,
    deliveryUrl: row.deliveryUrl,
    deliveryAuth: row.deliveryUsername && password ? { username: row.deliveryUsername, password } : null,
    luggage: row.luggage as LuggageMode,
    webhookUrl: row.webhookUrl,
    webhookSecret: row.webhookSecret && secrets.open(row.webhookSecret, secretContext("webhookSecret", row.netid)),
    webhookFormat: row.webhookFormat as WebhookFormat,
    acceptTripsFrom: row.acceptTripsFrom as AcceptTripsFrom,
  };
}

type Row = typeof outboxMessages.$inferSelect;
const toMessage = (r: Row): OutboxMessage => ({ ...r, channel: r.channel as Channel, status: r.status as OutboxStatus });

/** The outbox table. Writes are synchronous so they can join the booking change's transaction. */
export class SqliteOutbox implements Outbox {
  private readonly dueStatement;
  private readonly insertStatement;

  constructor(private readonly db: Db) {
    // In order per booking and channel: a message waits while an older one of its booking is still pending.
    this.dueStatement = db.$client.query<Row & Record<string, unknown>, [number, number, number]>(`
      SELECT id, event_id AS eventId, channel, event_type AS eventType, transaction_id AS transactionId,
             target_netid AS targetNetid, url, body, status, attempts, next_attempt_at AS nextAttemptAt,
             last_error AS lastError, last_status AS lastStatus, created_at AS createdAt, delivered_at AS deliveredAt
      FROM outbox_messages m
      WHERE m.status = 'pending' AND m.next_attempt_at <= ?
        AND NOT EXISTS (SELECT 1 FROM outbox_messages p
                        WHERE p.transaction_id = m.transaction_id AND p.channel = m.channel
                          AND p.status = 'pending' AND p.id < m.id)
      ORDER BY m.next_attempt_at, m.id
      LIMIT ? OFFSET ?`);
    this.insertStatement = db.$client.prepare(SqliteOutbox.INSERT_SQL);
  }

  /** One transaction on the connection the bookings share (a savepoint inside one already open). */
  atomically<T>(fn: () => T): T {
    return this.db.$client.transaction(fn)();
  }

  /** Adds a message; call inside the transaction of the change it announces. */
  enqueue(message: NewOutboxMessage, at: number): void {
    this.insertStatement.run(...SqliteOutbox.insertArgs(message, at));
  }

  /** Messages not delivered, per channel and status (pending: the backlog; failed: given up). */
  backlog(): Array<{ channel: string; status: string; count: number }> {
    return this.db.$client
      .query<{ channel: string; status: string; count: number }, []>("SELECT channel, status, count(*) AS count FROM outbox_messages WHERE status IN ('pending', 'failed') GROUP BY channel, status")
      .all();
  }

  /** The insert `enqueue` runs, as SQL text and its arguments (the booking writer runs it on its own connection). */
  static readonly INSERT_SQL =
    "INSERT INTO outbox_messages (event_id, channel, event_type, transaction_id, target_netid, url, body, status, attempts, next_attempt_at, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, 'pending', 0, ?, ?)";

  static insertArgs(m: NewOutboxMessage, at: number): Array<string | number> {
    return [m.eventId, m.channel, m.eventType, m.transactionId, m.targetNetid, m.url, m.body, at, at];
  }

  due(now: number, limit: number, offset = 0): OutboxMessage[] {
    return this.dueStatement.all(now, limit, offset).map((r) => toMessage(r as Row));
  }

  /** Holds a pending message back until `at` without counting an attempt (its target's circuit is open). */
  putOff(id: number, at: number): void {
    this.db.update(outboxMessages).set({ nextAttemptAt: at }).where(and(eq(outboxMessages.id, id), eq(outboxMessages.status, "pending"))).run();
  }

  /** Seconds until the earliest pending message is due, or undefined when none is pending. */
  nextDueAt(): number | undefined {
    const row = this.db.select({ at: sql<number>`min(${outboxMessages.nextAttemptAt})` }).from(outboxMessages).where(eq(outboxMessages.status, "pending")).get();
    return row?.at ?? undefined;
  }

  markDelivered(id: number, status: number, at: number): void {
    this.db.update(outboxMessages).set({ status: "delivered", attempts: sql`${outboxMessages.attempts} + 1`, lastStatus: status, lastError: null, deliveredAt: at }).where(eq(outboxMessages.id, id)).run();
  }

  /** Records a failed attempt: rescheduled at `retryAt`, or failed for good when undefined. */
  markAttemptFailed(id: number, error: string, status: number | null, retryAt: number | undefined): void {
    this.db
      .update(outboxMessages)
      .set({
        status: retryAt === undefined ? "failed" : "pending",
        attempts: sql`${outboxMessages.attempts} + 1`,
        lastError: error,
        lastStatus: status,
        ...(retryAt === undefined ? {} : { nextAttemptAt: retryAt }),
      })
      .where(eq(outboxMessages.id, id))
      .run();
  }

  /**
   * Puts failed messages of a booking and channel back in the queue, attempts reset, aimed at `url` when given
   * (the partner may have fixed its endpoint). Returns how many.
   */
  requeueFailed(transactionId: string, channel: Channel, at: number, url?: string): number {
    const result = this.db
      .update(outboxMessages)
      .set({ status: "pending", attempts: 0, nextAttemptAt: at, ...(url ? { url } : {}) })
      .where(and(eq(outboxMessages.transactionId, transactionId), eq(outboxMessages.channel, channel), eq(outboxMessages.status, "failed")))
      .run() as unknown as { changes: number };
    return result.changes;
  }

  /** Sends a message again with the same event id (a replay). */
  requeue(id: number, at: number): void {
    this.db.update(outboxMessages).set({ status: "pending", attempts: 0, nextAttemptAt: at, deliveredAt: null }).where(eq(outboxMessages.id, id)).run();
  }

  get(id: number): OutboxMessage | undefined {
    const row = this.db.select().from(outboxMessages).where(eq(outboxMessages.id, id)).get();
    return row ? toMessage(row) : undefined;
  }

  byEventId(eventId: string): OutboxMessage | undefined {
    const row = this.db.select().from(outboxMessages).where(eq(outboxMessages.eventId, eventId)).get();
    return row ? toMessage(row) : undefined;
  }

  /** A company's messages on a channel, newest first. */
  list(netid: string, channel: Channel, limit: number, offset: number): { items: OutboxMessage[]; total: number } {
    const where = and(eq(outboxMessages.targetNetid, netid), eq(outboxMessages.channel, channel));
    const items = this.db.select().from(outboxMessages).where(where).orderBy(desc(outboxMessages.id)).limit(limit).offset(offset).all().map(toMessage);
    const total = this.db.select({ n: sql<number>`count(*)` }).from(outboxMessages).where(where).get()?.n ?? 0;
    return { items, total };
  }

  /** The newest message of a booking on a channel. */
  latest(transactionId: string, channel: Channel): OutboxMessage | undefined {
    const row = this.db
      .select()
      .from(outboxMessages)
      .where(and(eq(outboxMessages.transactionId, transactionId), eq(outboxMessages.channel, channel)))
      .orderBy(desc(outboxMessages.id))
      .limit(1)
      .get();
    return row ? toMessage(row) : undefined;
  }

  /** Every message of a booking, oldest first. */
  forBooking(transactionId: string): OutboxMessage[] {
    return this.db.select().from(outboxMessages).where(eq(outboxMessages.transactionId, transactionId)).orderBy(asc(outboxMessages.id)).all().map(toMessage);
  }
}
