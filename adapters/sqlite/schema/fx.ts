import { sqliteTable, text, integer } from "drizzle-orm/sqlite-core";

/**
 * The exchange's FX table (CLI `fx import`): one row per currency, units per 1 EUR as the ECB wrote it, all of one
 * day (`rate_date`) and one import (`imported_at`), replaced whole by each import.
 */
export const fxRates = sqliteTable("fx_rates", {
  currency: text("currency").primaryKey(),
  rate: text("rate").notNull(),
  rateDate: text("rate_date").notNull(),
  importedAt: integer("imported_at").notNull(),
});
