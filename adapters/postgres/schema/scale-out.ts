import { pgTable, text, bigint, doublePrecision, index } from "drizzle-orm/pg-core";

/**
 * PostgreSQL only. Token buckets of the request budgets, one row per budget and caller, shared by every
 * instance (unlogged by migration 0003: losing them in a crash only forgives a minute of budget).
 */
export const rateBuckets = pgTable("rate_buckets", {
  key: text("key").primaryKey(),
  /** The refilled level at the last request minus one: what is left when it was admitted, negative when refused (it took nothing). */
  tokens: doublePrecision("tokens").notNull(),
  /** When `tokens` was last computed (Unix seconds, fractional). */
  at: doublePrecision("at").notNull(),
});

/**
 * PostgreSQL only. Login attempts admitted by the throttle whose password is still being checked, so that
 * concurrent guesses on any instance count against one budget; an attempt older than its lease is ignored
 * (its instance died mid-login).
 */
export const loginAttempts = pgTable(
  "login_attempts",
  {
    id: bigint("id", { mode: "number" }).primaryKey().generatedByDefaultAsIdentity(),
    key: text("key").notNull(),
    /** Unix seconds, fractional. */
    startedAt: doublePrecision("started_at").notNull(),
  },
  (t) => [index("login_attempts_key").on(t.key, t.startedAt)],
);

/**
 * PostgreSQL only. The event streams open on any instance, so the per-company limit holds across instances: a
 * stream's row is renewed while it is open and deleted when it closes; one whose instance died expires.
 */
export const liveStreams = pgTable(
  "live_streams",
  {
    id: text("id").primaryKey(),
    netid: text("netid").notNull(),
    /** Unix seconds, fractional. */
    expiresAt: doublePrecision("expires_at").notNull(),
  },
  (t) => [index("live_streams_netid").on(t.netid, t.expiresAt)],
);
