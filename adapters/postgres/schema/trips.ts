import { sql } from "drizzle-orm";
import { pgTable, text, integer, bigint, boolean, index, uniqueIndex, primaryKey } from "drizzle-orm/pg-core";
import { time } from "./columns";

/**
 * Bookings and quotes. The columns are what lookups, listings and uniqueness need; the trip as sent
 * (tripPacket fields, affiliate notes, provider details) is one JSON text column, change logs and transaction
 * errors one each — so every change is one row written and every lookup one row read. They stay text (not
 * jsonb) so both adapters hand the same strings to the same mappers.
 */
export const bookings = pgTable(
  "bookings",
  {
    transactionId: text("transaction_id").primaryKey(),
    requesterId: text("requester_id").notNull(),
    requesterResNo: text("requester_res_no").notNull(),
    providerId: text("provider_id").notNull(),
    providerResNo: text("provider_res_no"),
    status: text("status").notNull(),
    reservationType: text("reservation_type").notNull(),
    userid: text("userid").notNull(),
    sourcePlatform: text("source_platform").notNull(),
    targetPlatform: text("target_platform").notNull(),
    submitDate: time("submit_date").notNull(),
    pickupDate: time("pickup_date").notNull(),
    updatedAt: time("updated_at").notNull(),
    totalAmount: text("total_amount"),
    quoteValidUntil: time("quote_valid_until"),
    contentHash: text("content_hash").notNull(),
    /** Bumped on every change; a write whose version moved underneath it is refused. */
    version: integer("version").notNull(),
    tripPacket: text("trip_packet").notNull(),
    changeLogs: text("change_logs").notNull(),
    transactionErrors: text("transaction_errors").notNull(),
    /**
     * When the offer watch must next act on the booking (docs/terms.md#the-acceptance-deadline-acceptby,
     * docs/terms.md#the-cascade-fallback): its acceptBy while the provider has not
     * accepted, the time of a REJECT or FAILED that moves it on; null when nothing is due. Derived from the booking on
     * every write (domain/trips/offers.ts), leased forward while an instance handles it.
     */
    offerDue: time("offer_due"),
    /**
     * What the booking leaves its requester owing its provider, in whole minor units of `currency`: a CLOSE'd fare,
     * a late cancel's fee; null when nothing (docs/settlement.md#statements-and-settlement). Derived on every write
     * (domain/trips/settled-amount.ts).
     */
    settleUnits: bigint("settle_units", { mode: "number" }),
    /** The currency its fee lines name (upper case); null when none does. */
    currency: text("currency"),
    /** When its fare can no longer change (docs/settlement.md#the-final-fare); null before the trip ends. */
    fareFinalAt: time("fare_final_at"),
    /**
     * When the booking's flight is expected to land while the booking follows it, for the flight-status poller
     * (docs/flights.md#the-flight-status-poller); null when it meets no flight, the flight landed or the booking ended.
     * Derived on every write (domain/trips/flights.ts:flightDue).
     */
    flightDue: time("flight_due"),
  },
  (t) => [
    uniqueIndex("bookings_requester_res_no").on(t.requesterId, t.requesterResNo),
    index("bookings_requester_submit").on(t.requesterId, t.submitDate),
    index("bookings_provider_submit").on(t.providerId, t.submitDate),
    index("bookings_provider_status").on(t.providerId, t.status),
    index("bookings_offer_due").on(t.offerDue).where(sql.raw("offer_due IS NOT NULL")),
    index("bookings_flight_due").on(t.flightDue).where(sql.raw("flight_due IS NOT NULL")),
    // A company's statements read its settled bookings of a month, as requester and as provider
    // (docs/settlement.md#statements-and-settlement): from these alone (the sums from the index itself), never a scan.
    index("bookings_settle_requester").on(t.requesterId, t.pickupDate, t.providerId, t.currency, t.settleUnits).where(sql.raw("settle_units IS NOT NULL")),
    index("bookings_settle_provider").on(t.providerId, t.pickupDate, t.requesterId, t.currency, t.settleUnits).where(sql.raw("settle_units IS NOT NULL")),
    // GNet providers name a booking by their own reservation number (providerUpdateStatusByResNo).
    index("bookings_provider_res_no").on(t.providerId, t.providerResNo),
    // A provider's number names at most one live booking (CLOSE, CANCEL, REJECT and NO_SHOW are final): the
    // database refuses a second, so two concurrent updates cannot both take it.
    uniqueIndex(PROVIDER_RES_NO_LIVE)
      .on(t.providerId, t.providerResNo)
      .where(sql.raw(`provider_res_no IS NOT NULL AND status NOT IN ('CLOSE', 'CANCEL', 'REJECT', 'NO_SHOW')`)),
  ],
);

/**
 * The providers a booking was offered to before its current one (docs/terms.md#provider-record): a row per earlier
 * offer, written by a trigger when the cascade changes a booking's provider_id, so that a provider's record finds the
 * bookings that moved on from it by its netid. What the offer came to is read from the booking itself.
 */
export const earlierOffers = pgTable(
  "earlier_offers",
  {
    transactionId: text("transaction_id").notNull(),
    providerId: text("provider_id").notNull(),
    /** The booking's, so the record's window narrows this table as it narrows bookings. */
    submitDate: time("submit_date").notNull(),
  },
  (t) => [primaryKey({ columns: [t.transactionId, t.providerId] }), index("earlier_offers_provider_submit").on(t.providerId, t.submitDate)],
);

/** The index that keeps a provider's reservation number on one live booking. */
export const PROVIDER_RES_NO_LIVE = "bookings_provider_res_no_live";

/** Idempotency-Key results, per company, replayed for 24 h. */
export const idempotencyKeys = pgTable(
  "idempotency_keys",
  {
    netid: text("netid").notNull(),
    key: text("key").notNull(),
    requestHash: text("request_hash").notNull(),
    status: integer("status").notNull(),
    body: text("body").notNull(),
    createdAt: time("created_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.netid, t.key] }), index("idempotency_keys_created_at").on(t.createdAt)],
);

/**
 * Cost recoveries (docs/settlement.md#give-back-recovery): what a provider that gave a booking back owes its requester,
 * one row per booking, written in the give-back's transaction; statements read them by requester, provider and
 * pickup month (both directions: the two indexes).
 */
export const costRecoveries = pgTable(
  "cost_recoveries",
  {
    transactionId: text("transaction_id").primaryKey(),
    requesterId: text("requester_id").notNull(),
    providerId: text("provider_id").notNull(),
    /** Whole minor units of `currency` (7500 = 75.00 USD). */
    amountMinor: bigint("amount_minor", { mode: "number" }).notNull(),
    currency: text("currency").notNull(),
    percent: integer("percent").notNull(),
    /** The booking's pickup (Unix seconds): a statement's period is its UTC month. */
    pickupDate: time("pickup_date").notNull(),
    recordedAt: time("recorded_at").notNull(),
    /** A flight moved the pickup by more than 60 minutes: nothing is owed. */
    waived: boolean("waived").notNull().default(false),
  },
  (t) => [
    index("cost_recoveries_requester_provider_pickup").on(t.requesterId, t.providerId, t.pickupDate),
    index("cost_recoveries_provider_requester_pickup").on(t.providerId, t.requesterId, t.pickupDate),
  ],
);
