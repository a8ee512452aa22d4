import { pgTable, text } from "drizzle-orm/pg-core";
import { companies } from "./accounts";
import { time } from "./columns";

/** A provider's rate card (docs/rates.md#setting-the-card): the whole card as JSON, replaced whole by each PUT. */
export const rateCards = pgTable("rate_cards", {
  netid: text("netid")
    .primaryKey()
    .references(() => companies.netid, { onDelete: "cascade" }),
  card: text("card").notNull(),
  updatedAt: time("updated_at").notNull(),
});
