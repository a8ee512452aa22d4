import { sqliteTable, text, integer } from "drizzle-orm/sqlite-core";
import { companies } from "./accounts";

/** A provider's rate card (docs/rates.md#setting-the-card): the whole card as JSON, replaced whole by each PUT. */
export const rateCards = sqliteTable("rate_cards", {
  netid: text("netid")
    .primaryKey()
    .references(() => companies.netid, { onDelete: "cascade" }),
  card: text("card").notNull(),
  updatedAt: integer("updated_at").notNull(),
});
