import { sqliteTable, text, integer, real, index, uniqueIndex } from "drizzle-orm/sqlite-core";
import { companies } from "./accounts";

/** A company's delivery endpoint ("farm-in"), luggage support and webhook settings. */
export const companyIntegrations = sqliteTable("company_integrations", {
  netid: text("netid")
    .primaryKey()
    .references(() => companies.netid, { onDelete: "cascade" }),
  deliveryUrl: text("delivery_url"),
  deliveryUsername: text("delivery_username"),
  deliveryPassword: text("delivery_password"),
  luggage: text("luggage").notNull().default("notes"),
  webhookUrl: text("webhook_url"),
  webhookSecret: text("webhook_secret"),
  /** When the webhook URL answered the signed challenge; null while it has not (nothing is sent to it). */
  webhookVerifiedAt: integer("webhook_verified_at"),
  /** "events" (the exchange's envelope) or "gnet" (GNet's callback body at the top level). */
  webhookFormat: text("webhook_format").notNull().default("events"),
  /** "anyone" (default) or "partners": who may send this company trips and quote requests. */
  acceptTripsFrom: text("accept_trips_from").notNull().default("anyone"),
  /** How far from a pickup (km, 1–500) this provider's vehicles serve it, besides those listing its airport. */
  serviceRadiusKm: integer("service_radius_km").notNull().default(50),
  /** Minutes a vehicle stays held after a booked trip's estimated end (0–720). */
  turnaroundMinutes: integer("turnaround_minutes").notNull().default(30),
  /** A pickup sooner than this many minutes from now leaves the provider out of quotes (0–10,080). */
  minimumNoticeMinutes: integer("minimum_notice_minutes").notNull().default(0),
  /** The currency a network quote of this company shows converted amounts in (ISO 4217); null: none. */
  displayCurrency: text("display_currency"),
  /** The provider\'s cancellation tiers and free waiting (docs/terms.md#policies), JSON; null: the defaults. */
  policies: text("policies"),
  /** The longest road distance (km, 1–5,000) this provider quotes a trip over (docs/rates.md#never-absurd-the-longest-trip-a-provider-quotes). */
  maxTripKm: integer("max_trip_km").notNull().default(800),
  /** The requester's give-back recovery tiers (docs/settlement.md#give-back-recovery), JSON; null: the default. */
  giveBackRecovery: text("give_back_recovery"),
  updatedAt: integer("updated_at").notNull(),
});

/**
 * The transactional outbox: rows are written in the same transaction as the booking change they announce,
 * and a background worker delivers them in order per booking and channel.
 */
export const outboxMessages = sqliteTable(
  "outbox_messages",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    eventId: text("event_id").notNull(),
    /** "delivery" (to the provider's endpoint) or "webhook" (to the requester). */
    channel: text("channel").notNull(),
    eventType: text("event_type").notNull(),
    transactionId: text("transaction_id").notNull(),
    targetNetid: text("target_netid").notNull(),
    url: text("url").notNull(),
    body: text("body").notNull(),
    /** pending | delivered | failed */
    status: text("status").notNull().default("pending"),
    attempts: integer("attempts").notNull().default(0),
    nextAttemptAt: real("next_attempt_at").notNull(),
    lastError: text("last_error"),
    lastStatus: integer("last_status"),
    createdAt: integer("created_at").notNull(),
    deliveredAt: integer("delivered_at"),
  },
  (t) => [
    uniqueIndex("outbox_event_id").on(t.eventId),
    index("outbox_due").on(t.status, t.nextAttemptAt),
    index("outbox_booking").on(t.transactionId, t.channel, t.id),
    index("outbox_owner").on(t.targetNetid, t.channel, t.id),
  ],
);

/**
 * What each attempt of an outbox message sent and got back: the request headers (no credentials), the answer's
 * status and first 4 KiB, how long it took, or why it failed. Kept for the newest attempts of each message and
 * deleted with the message (retention prunes delivered messages).
 */
export const deliveryAttempts = sqliteTable(
  "delivery_attempts",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    messageId: integer("message_id")
      .notNull()
      .references(() => outboxMessages.id, { onDelete: "cascade" }),
    /** Unix seconds when the attempt ended. */
    at: integer("at").notNull(),
    durationMs: integer("duration_ms").notNull(),
    /** JSON object of the headers sent; null when nothing was sent (the URL was refused before connecting). */
    requestHeaders: text("request_headers"),
    responseStatus: integer("response_status"),
    /** The answer's first 4 KiB as text. */
    responseBody: text("response_body"),
    responseTruncated: integer("response_truncated", { mode: "boolean" }).notNull().default(false),
    error: text("error"),
  },
  (t) => [index("delivery_attempts_message").on(t.messageId, t.id)],
);
