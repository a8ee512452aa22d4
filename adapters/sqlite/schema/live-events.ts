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
    body: text("body").notNull(),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [index("live_events_netid").on(t.netid, t.id), index("live_events_created").on(t.createdAt)],
);
