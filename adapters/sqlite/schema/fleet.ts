import { sqliteTable, text, integer, real, index, primaryKey, uniqueIndex } from "drizzle-orm/sqlite-core";
import { companies } from "./accounts";

/** Fleet entries. Rates are decimal strings; airports a comma-separated list of upper-case IATA codes. */
export const fleetEntries = sqliteTable(
  "fleet_entries",
  {
    slug: text("slug").primaryKey(),
    netid: text("netid")
      .notNull()
      .references(() => companies.netid, { onDelete: "cascade" }),
    type: text("type").notNull(),
    name: text("name").notNull(),
    description: text("description").notNull().default(""),
    imageUrl: text("image_url"),
    maxPassengers: integer("max_passengers").notNull(),
    maxLuggage: integer("max_luggage"),
    lat: real("lat"),
    lon: real("lon"),
    airports: text("airports").notNull().default(""),
    minimumRate: text("minimum_rate").notNull().default("0"),
    hourlyRate: text("hourly_rate").notNull().default("0"),
    currency: text("currency").notNull().default("USD"),
    active: integer("active", { mode: "boolean" }).notNull().default(true),
    /** The operator's own id of the entry, unique within its company (docs/operator.md#fleet-import): what an import matches rows on. */
    externalId: text("external_id"),
    createdAt: integer("created_at").notNull(),
    updatedAt: integer("updated_at").notNull(),
  },
  // The listing's orders (GET /api/fleet): a page of a 50,000-entry fleet is read from an index, not sorted whole.
  (t) => [
    index("fleet_entries_netid_slug").on(t.netid, t.slug),
    index("fleet_entries_netid_name").on(t.netid, t.name, t.slug),
    index("fleet_entries_netid_passengers").on(t.netid, t.maxPassengers, t.slug),
    index("fleet_entries_updated_at").on(t.updatedAt),
    uniqueIndex("fleet_entries_netid_external_id").on(t.netid, t.externalId),
  ],
);

/**
 * One row (id 1) stamping the state of fleet_entries: triggers (migration 0006) bump `n` and draw a new
 * random `token` for every entry inserted, updated or deleted, in the same transaction. A saved fleet index
 * whose stamp equals this row was built from exactly the current fleet.
 */
export const fleetGeneration = sqliteTable("fleet_generation", {
  id: integer("id").primaryKey(),
  n: integer("n").notNull(),
  token: text("token").notNull(),
  /**
   * The stamp of the last saved fleet index (−1: none yet): fleet_changes logs the changes made after it, so
   * a restart can load that index and re-read just the entries changed since (migration 0010).
   */
  logBase: integer("log_base").notNull().default(-1),
  logBaseToken: text("log_base_token"),
});

/**
 * The slugs changed after the saved index (fleet_generation.log_base): a trigger adds (n, slug) for every
 * entry inserted, updated (both slugs if the slug changed) or deleted, while n − log_base ≤ 50,000 — beyond
 * that (a mass import) nothing is logged and the next start builds from the database. Rows up to the base
 * are deleted when a newer index is saved.
 */
export const fleetChanges = sqliteTable(
  "fleet_changes",
  {
    n: integer("n").notNull(),
    slug: text("slug").notNull(),
  },
  (t) => [primaryKey({ columns: [t.n, t.slug] })],
);

/**
 * Which entries list which airport: one row per (netid, airport, slug), kept by triggers on fleet_entries (migration
 * 0017), so a quote finds a provider's entries listing the pickup airport (those standing beyond its radius, by
 * the covering index on their position) without reading its whole fleet.
 */
export const fleetAirports = sqliteTable(
  "fleet_airports",
  {
    netid: text("netid").notNull(),
    airport: text("airport").notNull(),
    slug: text("slug").notNull(),
    /** The entry's position (null: none), so entries standing within a pickup's radius are told apart by the index alone. */
    lat: real("lat"),
    lon: real("lon"),
  },
  (t) => [
    primaryKey({ columns: [t.netid, t.airport, t.slug] }),
    index("fleet_airports_slug").on(t.slug),
    index("fleet_airports_place").on(t.netid, t.airport, t.lat, t.lon, t.slug),
  ],
);
