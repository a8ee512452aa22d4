import { pgTable, text, bigint, index } from "drizzle-orm/pg-core";
import { time } from "./columns";

/** Security events (logins, failures, releases, registrations, plan and integration changes, denied access). */
export const auditEvents = pgTable(
  "audit_events",
  {
    id: bigint("id", { mode: "number" }).primaryKey().generatedByDefaultAsIdentity(),
    at: time("at").notNull(),
    type: text("type").notNull(),
    netid: text("netid"),
    uid: text("uid"),
    address: text("address"),
    requestId: text("request_id"),
    detail: text("detail"),
  },
  (t) => [index("audit_events_at").on(t.at), index("audit_events_type_at").on(t.type, t.at), index("audit_events_netid_at").on(t.netid, t.at)],
);
