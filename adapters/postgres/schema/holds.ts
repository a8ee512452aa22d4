import { sql } from "drizzle-orm";
import { pgTable, text, index, uniqueIndex } from "drizzle-orm/pg-core";
import { fleetEntries } from "./fleet";
import { time } from "./columns";

/**
 * What keeps a vehicle (fleet entry) from being quoted or booked for a while (docs/availability.md): a booking made from a
 * quote option (`kind` BOOKING, its `transaction_id` and `requester_netid`; live while the booking is, an unaccepted one
 * until its acceptBy) or a provider's blackout (`kind` BLACKOUT, its `reason`). Times are Unix seconds, [starts_at, ends_at).
 */
export const vehicleHolds = pgTable(
  "vehicle_holds",
  {
    id: text("id").primaryKey(),
    slug: text("slug")
      .notNull()
      .references(() => fleetEntries.slug, { onDelete: "cascade" }),
    providerNetid: text("provider_netid").notNull(),
    kind: text("kind").notNull(),
    transactionId: text("transaction_id"),
    startsAt: time("starts_at").notNull(),
    endsAt: time("ends_at").notNull(),
    reason: text("reason"),
    createdAt: time("created_at").notNull(),
    /** A booking hold's requester: its live unaccepted holds are limited (docs/availability.md#hold-limits). */
    requesterNetid: text("requester_netid"),
  },
  (t) => [
    index("vehicle_holds_slug_ends").on(t.slug, t.endsAt),
    index("vehicle_holds_provider_ends").on(t.providerNetid, t.endsAt),
    // A company's live blackouts, counted at each add (docs/availability.md#how-many-blackouts): blackouts only.
    index("vehicle_holds_provider_blackouts").on(t.providerNetid, t.endsAt).where(sql.raw("kind = 'BLACKOUT'")),
    // Every live hold still to end (the hold index's load and refresh): a range scan, not the whole table.
    index("vehicle_holds_ends_at").on(t.endsAt),
    uniqueIndex("vehicle_holds_transaction").on(t.transactionId),
    // A requester's holds still to end: what a claim counts against its limits.
    index("vehicle_holds_requester_ends").on(t.requesterNetid, t.endsAt),
  ],
);
