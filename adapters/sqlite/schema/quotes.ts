import { sqliteTable, text, integer, index, primaryKey } from "drizzle-orm/sqlite-core";
import { companies } from "./accounts";

/**
 * Network quotes (POST /api/quotes): one row per quote, visible only to its maker. The trip asked about, the
 * priced options and the warnings are one JSON column: a quote is written once and read whole.
 */
export const networkQuotes = sqliteTable(
  "network_quotes",
  {
    quoteId: text("quote_id").primaryKey(),
    makerNetid: text("maker_netid")
      .notNull()
      .references(() => companies.netid, { onDelete: "cascade" }),
    makerUid: text("maker_uid").notNull(),
    createdAt: integer("created_at").notNull(),
    validUntil: integer("valid_until").notNull(),
    /**
     * Kept at least until then (Unix seconds): its validity, or — while a booking made from it with a fallback may
     * still move to another of its options — that booking's pickup (docs/terms.md#deadlines-within-the-trip).
     */
    keptUntil: integer("kept_until").notNull().default(0),
    body: text("body").notNull(),
  },
  // Retention deletes by what it keeps for; the per-company bound counts a maker's quotes of the last hour.
  (t) => [index("network_quotes_kept_until").on(t.keptUntil), index("network_quotes_maker_created").on(t.makerNetid, t.createdAt)],
);

/**
 * The bytes of network quotes a company keeps, per hour of making (bucket = created_at / 3600; a quote kept longer
 * moves on to the hour it then counts from, see usageBucketOf in adapters/sql/network-quote-rows.ts), written with each
 * quote in its transaction: the kept-bytes bound (docs/security.md#per-company-store-bounds) sums the hours a quote
 * is kept (49 hours, and the hours ahead that kept quotes count from), never the quotes. Retention drops an hour once
 * its quotes are gone.
 */
export const networkQuoteUsage = sqliteTable(
  "network_quote_usage",
  {
    netid: text("netid").notNull(),
    bucket: integer("bucket").notNull(),
    bytes: integer("bytes").notNull(),
  },
  (t) => [primaryKey({ columns: [t.netid, t.bucket] })],
);
