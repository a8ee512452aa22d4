import { sql } from "drizzle-orm";
import { sqliteTable, text, integer, index, uniqueIndex } from "drizzle-orm/sqlite-core";

/**
 * Disputes of statement lines (docs/settlement.md#states-and-disputes): one row per dispute a party raised on a
 * booking's line, with the other party's answer once given. A line has at most one open dispute.
 */
export const statementDisputes = sqliteTable(
  "statement_disputes",
  {
    id: text("id").primaryKey(),
    transactionId: text("transaction_id").notNull(),
    /** The booking's parties and the statement's month (its pickup's, UTC `YYYY-MM`). */
    requesterId: text("requester_id").notNull(),
    providerId: text("provider_id").notNull(),
    period: text("period").notNull(),
    raisedBy: text("raised_by").notNull(),
    reason: text("reason").notNull(),
    raisedAt: integer("raised_at").notNull(),
    /** OPEN, ACCEPTED or ANSWERED. */
    state: text("state").notNull(),
    answer: text("answer"),
    answeredAt: integer("answered_at"),
  },
  (t) => [
    index("statement_disputes_requester_period").on(t.requesterId, t.period),
    index("statement_disputes_provider_period").on(t.providerId, t.period),
    uniqueIndex("statement_disputes_open_line").on(t.transactionId).where(sql.raw("state = 'OPEN'")),
  ],
);
