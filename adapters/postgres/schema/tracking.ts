import { pgTable, text, integer, bigint, doublePrecision, primaryKey } from "drizzle-orm/pg-core";
import { time } from "./columns";

/** The last chauffeur position of each booking (written in batches). */
export const chauffeurPositions = pgTable("chauffeur_positions", {
  transactionId: text("transaction_id").primaryKey(),
  lat: doublePrecision("lat").notNull(),
  lon: doublePrecision("lon").notNull(),
  timestamp: text("timestamp").notNull(),
  /** Unix milliseconds the exchange received it. */
  receivedAt: time("received_at").notNull(),
  /** How many positions the booking has had: the next trail slot. */
  seq: bigint("seq", { mode: "number" }).notNull(),
  chfId: text("chf_id"),
  chfName: text("chf_name"),
  phoneNo: text("phone_no"),
  griddId: text("gridd_id"),
  /** The ETA to the pickup this position gave (docs/flights.md#eta): minutes and the instant; null without one. */
  etaMinutes: integer("eta_minutes"),
  etaAt: text("eta_at"),
});

/** A bounded trail per booking: slot = seq modulo the trail length, so it is overwritten in a ring. */
export const positionTrail = pgTable(
  "position_trail",
  {
    transactionId: text("transaction_id").notNull(),
    slot: integer("slot").notNull(),
    seq: bigint("seq", { mode: "number" }).notNull(),
    lat: doublePrecision("lat").notNull(),
    lon: doublePrecision("lon").notNull(),
    timestamp: text("timestamp").notNull(),
    receivedAt: time("received_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.transactionId, t.slot] })],
);
