import { sqliteTable, text, integer, real, primaryKey } from "drizzle-orm/sqlite-core";

/** The last chauffeur position of each booking (written in batches; see SqlitePositionStore). */
export const chauffeurPositions = sqliteTable("chauffeur_positions", {
  transactionId: text("transaction_id").primaryKey(),
  lat: real("lat").notNull(),
  lon: real("lon").notNull(),
  timestamp: text("timestamp").notNull(),
  /** Unix milliseconds the exchange received it. */
  receivedAt: integer("received_at").notNull(),
  /** How many positions the booking has had: the next trail slot. */
  seq: integer("seq").notNull(),
  chfId: text("chf_id"),
  chfName: text("chf_name"),
  phoneNo: text("phone_no"),
  griddId: text("gridd_id"),
  /** The ETA to the pickup this position gave (docs/flights.md#eta): minutes and the instant; null without one. */
  etaMinutes: integer("eta_minutes"),
  etaAt: text("eta_at"),
});

/** A bounded trail per booking: slot = seq modulo the trail length, so it is overwritten in a ring. */
export const positionTrail = sqliteTable(
  "position_trail",
  {
    transactionId: text("transaction_id").notNull(),
    slot: integer("slot").notNull(),
    seq: integer("seq").notNull(),
    lat: real("lat").notNull(),
    lon: real("lon").notNull(),
    timestamp: text("timestamp").notNull(),
    receivedAt: integer("received_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.transactionId, t.slot] })],
);
