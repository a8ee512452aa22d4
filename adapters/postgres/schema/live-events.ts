import { pgTable, pgSequence, text, bigint, integer, index, uniqueIndex, primaryKey } from "drizzle-orm/pg-core";
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
    /** Empty for a row whose body is kept once in live_event_bodies (`body_id`); rows written before that carry it here. */
    body: text("body").notNull(),
    /** The event's body in live_event_bodies, shared by every party the event is for. */
    bodyId: text("body_id"),
    createdAt: time("created_at").notNull(),
  },
  (t) => [
    uniqueIndex("live_events_seq").on(t.seq),
    index("live_events_netid").on(t.netid, t.seq),
    index("live_events_unsequenced").on(t.id).where(sql`${t.seq} IS NULL`),
    index("live_events_created").on(t.createdAt),
  ],
);

/**
 * The body of each live event, kept once whichever parties see it (their live_events rows name it), and charged to
 * the company whose change made it (`netid`): the sum of `bytes` over the retention window is the company's bound.
 */
export const liveEventBodies = pgTable(
  "live_event_bodies",
  {
    id: text("id").primaryKey(),
    netid: text("netid").notNull(),
    bytes: bigint("bytes", { mode: "number" }).notNull(),
    body: text("body").notNull(),
    createdAt: time("created_at").notNull(),
  },
  (t) => [index("live_event_bodies_usage").on(t.netid, t.createdAt, t.bytes), index("live_event_bodies_created").on(t.createdAt)],
);

/**
 * PostgreSQL only. Each company's stored live event bytes per quarter hour (`bucket`: created_at / 900), counted by
 * the statements that store the bodies, in their transactions: the live event bound reads the sum of a window's
 * rows instead of summing every body of the window. Each connection adds to rows of its own (`writer`: its server
 * process id), so concurrent transactions never wait on each other's row; retention folds a past quarter's rows
 * into writer 0 and drops the quarters past the window.
 */
export const liveEventUsage = pgTable(
  "live_event_usage",
  {
    netid: text("netid").notNull(),
    bucket: bigint("bucket", { mode: "number" }).notNull(),
    writer: integer("writer").notNull(),
    bytes: bigint("bytes", { mode: "number" }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.netid, t.bucket, t.writer] })],
);

/** Where the sequencer takes event numbers from: a sequence never gives a number twice, even after rows are pruned. */
export const liveEventNumbers = pgSequence("live_event_numbers", { startWith: 1, increment: 1 });
