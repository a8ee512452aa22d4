import { sql } from "drizzle-orm";
import { pgTable, text, integer, bigint, doublePrecision, boolean, index, primaryKey, uniqueIndex } from "drizzle-orm/pg-core";
import { companies } from "./accounts";
import { time } from "./columns";

/** Fleet entries. Rates are decimal strings; airports a comma-separated list of upper-case IATA codes. */
export const fleetEntries = pgTable(
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
    lat: doublePrecision("lat"),
    lon: doublePrecision("lon"),
    airports: text("airports").notNull().default(""),
    minimumRate: text("minimum_rate").notNull().default("0"),
    hourlyRate: text("hourly_rate").notNull().default("0"),
    currency: text("currency").notNull().default("USD"),
    active: boolean("active").notNull().default(true),
    /** The operator's own id of the entry, unique within its company (docs/operator.md#fleet-import): what an import matches rows on. */
    externalId: text("external_id"),
    createdAt: time("created_at").notNull(),
    updatedAt: time("updated_at").notNull(),
  },
  // The listing's orders (GET /api/fleet, text in byte order as on SQLite): a page of a 50,000-entry fleet is read
  // from an index, not sorted whole.
  (t) => [
    index("fleet_entries_netid_slug").on(t.netid, sql`${t.slug} COLLATE "C"`),
    index("fleet_entries_netid_name").on(t.netid, sql`${t.name} COLLATE "C"`, sql`${t.slug} COLLATE "C"`),
    index("fleet_entries_netid_passengers").on(t.netid, t.maxPassengers, sql`${t.slug} COLLATE "C"`),
    index("fleet_entries_updated_at").on(t.updatedAt),
    uniqueIndex("fleet_entries_netid_external_id").on(t.netid, t.externalId),
  ],
);

/**
 * One row (id 1) stamping the state of fleet_entries: a trigger (migration 0001) bumps `n` and draws a new
 * random `token` for every entry inserted, updated or deleted, in the same transaction. A saved fleet index
 * whose stamp equals this row was built from exactly the current fleet.
 */
export const fleetGeneration = pgTable("fleet_generation", {
  id: integer("id").primaryKey(),
  n: bigint("n", { mode: "number" }).notNull(),
  token: text("token").notNull(),
  /**
   * The stamp of the last saved fleet index (−1: none yet): fleet_changes logs the changes made after it, so
   * a restart can load that index and re-read just the entries changed since.
   */
  logBase: bigint("log_base", { mode: "number" }).notNull().default(-1),
  logBaseToken: text("log_base_token"),
});

/**
 * The slugs changed after the saved index (fleet_generation.log_base): the trigger adds (n, slug) for every
 * entry inserted, updated (both slugs if the slug changed) or deleted, while n − log_base ≤ 50,000 — beyond
 * that (a mass import) nothing is logged and the next start builds from the database. Rows up to the base
 * are deleted when a newer index is saved.
 */
export const fleetChanges = pgTable(
  "fleet_changes",
  {
    n: bigint("n", { mode: "number" }).notNull(),
    slug: text("slug").notNull(),
  },
  (t) => [primaryKey({ columns: [t.n, t.slug] })],
);

/**
 * Which entries list which airport: one row per (netid, airport, slug), kept by triggers on fleet_entries (migration
 * 0006), so a quote finds a provider's entries listing the pickup airport (those standing beyond its radius, by
 * the covering index on their position) without reading its whole fleet.
 */
export const fleetAirports = pgTable(
  "fleet_airports",
  {
    netid: text("netid").notNull(),
    airport: text("airport").notNull(),
    slug: text("slug").notNull(),
    /** The entry's position (null: none), so entries standing within a pickup's radius are told apart by the index alone. */
    lat: doublePrecision("lat"),
    lon: doublePrecision("lon"),
  },
  (t) => [
    primaryKey({ columns: [t.netid, t.airport, t.slug] }),
    index("fleet_airports_slug").on(t.slug),
    index("fleet_airports_place").on(t.netid, t.airport, t.lat, t.lon, t.slug),
  ],
);
