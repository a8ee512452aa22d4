import { sqliteTable, text, integer, index } from "drizzle-orm/sqlite-core";

/**
 * Each company's live events (booking changes and chauffeur positions), in commit order: `id` is the event id an
 * event stream sends and resumes from (SQLite's writers take turns, so ids grow in commit order). A booking
 * change writes its rows in its own transaction; rows are pruned after the resume window.
 */
export const liveEvents = sqliteTable(
  "live_events",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
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
    createdAt: integer("created_at").notNull(),
  },
  (t) => [index("live_events_netid").on(t.netid, t.id), index("live_events_created").on(t.createdAt)],
);

/**
 * The body of each live event, kept once whichever parties see it (their live_events rows name it), and charged to
 * the company whose change made it (`netid`): the sum of `bytes` over the retention window is the company's bound.
 */
export const liveEventBodies = sqliteTable(
  "live_event_bodies",
  {
    id: text("id").primaryKey(),
    netid: text("netid").notNull(),
    bytes: integer("bytes").notNull(),
    body: text("body").notNull(),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [index("live_event_bodies_usage").on(t.netid, t.createdAt, t.bytes), index("live_event_bodies_created").on(t.createdAt)],
);
