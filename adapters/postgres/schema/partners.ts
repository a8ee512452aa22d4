import { pgTable, text, index, primaryKey } from "drizzle-orm/pg-core";
import { companies } from "./accounts";
import { time } from "./columns";

/**
 * Partnerships between two companies, one row per pair: `company_a` sorts before `company_b` (lower-cased),
 * so a pair has one key whoever asked. `requested_by` is the side that asked; `status` pending | active.
 * Ending a partnership deletes its row.
 */
export const partnerships = pgTable(
  "partnerships",
  {
    companyA: text("company_a")
      .notNull()
      .references(() => companies.netid, { onDelete: "cascade" }),
    companyB: text("company_b")
      .notNull()
      .references(() => companies.netid, { onDelete: "cascade" }),
    requestedBy: text("requested_by").notNull(),
    status: text("status").notNull(),
    createdAt: time("created_at").notNull(),
    acceptedAt: time("accepted_at"),
  },
  (t) => [primaryKey({ columns: [t.companyA, t.companyB] }), index("partnerships_company_b").on(t.companyB)],
);

/** A provider's translation of one requester vehicle type into its own, per partner (the requester). */
export const partnerVehicleTypes = pgTable(
  "partner_vehicle_types",
  {
    providerNetid: text("provider_netid")
      .notNull()
      .references(() => companies.netid, { onDelete: "cascade" }),
    requesterNetid: text("requester_netid")
      .notNull()
      .references(() => companies.netid, { onDelete: "cascade" }),
    requesterType: text("requester_type").notNull(),
    providerType: text("provider_type").notNull(),
  },
  // Named: the generated name would pass PostgreSQL's 63-byte identifier limit and be cut.
  (t) => [primaryKey({ name: "partner_vehicle_types_pk", columns: [t.providerNetid, t.requesterNetid, t.requesterType] })],
);
