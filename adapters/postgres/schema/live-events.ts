import { pgTable, pgSequence, text, bigint, index, uniqueIndex } from "drizzle-orm/pg-core";
import { sql } from "drizzle-orm";
import { time } from "./columns";

/**
 * Each company's live events (booking changes and chauffeur positions). Rows are inserted with `seq` null in the
 * change's own transaction; a sequencer (one instance at a time, under an advisory lock) numbers the committed
 * ones in the order it finds them, so `seq` — the event id streams send and resume from — only ever grows among
 * visible rows, whichever instance wrote them. Pruned after the resume window.
 */
export const liveEvents = pgTable(
  "live_events",
  {
    id: bigint("id", { mode: "number" }).primaryKey().generatedByDefaultAsIdentity(),
    seq: bigint("seq", { mode: "number" }),
    netid: text("netid").notNull(),
    transactionId: text("transaction_id").notNull(),
    /** "booking" (a change, the webhook's body) or "position" (the chauffeur moved). */
    kind: text("kind").notNull(),
    /** The company's part in the booking: "requester" or "provider" (a requester sees no position after the trip). */
    role: text("role").notNull(),
    type: text("type").notNull(),
    body: text("body").notNull(),
    createdAt: time("created_at").notNull(),
  },
  (t) => [
    uniqueIndex("live_events_seq").on(t.seq),
    index("live_events_netid").on(t.netid, t.seq),
    index("live_events_unsequenced").on(t.id).where(sql`${t.seq} IS NULL`),
    index("live_events_created").on(t.createdAt),
  ],
);

/** Where the sequencer takes event numbers from: a sequence never gives a number twice, even after rows are pruned. */
export const liveEventNumbers = pgSequence("live_event_numbers", { startWith: 1, increment: 1 });
