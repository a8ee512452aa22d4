import { and, eq, getTableColumns, inArray, sql } from "drizzle-orm";
import type { FleetEntry } from "../../domain/fleet/entry";
import type { ProviderFleet } from "../../domain/trips/ports";
import type { Db } from "./db";
import { fleetAirports, fleetEntries } from "./schema";

const ph = (name: string) => sql.placeholder(name);
/** Slugs per IN list (SQLite allows 32,766 variables a statement). */
const SLUG_BATCH = 500;

type Row = typeof fleetEntries.$inferSelect;
const toEntry = (r: Row): FleetEntry => ({ ...r, airports: r.airports === "" ? [] : r.airports.split(",") });

/** The provider fleet as quotes read it, straight from fleet_entries (the fleet feature owns its writes). */
export class SqliteProviderFleet implements ProviderFleet {
  private readonly active;
  private readonly listing;
  private readonly among;

  constructor(private readonly db: Db) {
    this.active = db
      .select()
      .from(fleetEntries)
      .where(and(eq(fleetEntries.netid, ph("netid")), eq(fleetEntries.active, true)))
      .prepare();
    this.listing = db
      .select(getTableColumns(fleetEntries))
      .from(fleetAirports)
      .innerJoin(fleetEntries, eq(fleetEntries.slug, fleetAirports.slug))
      .where(and(eq(fleetAirports.netid, ph("netid")), eq(fleetAirports.airport, ph("code")), eq(fleetEntries.active, true)))
      .prepare();
    // One prepared statement whatever the number of slugs: they arrive as one JSON array.
    this.among = db
      .select()
      .from(fleetEntries)
      .where(and(sql`${fleetEntries.slug} IN (SELECT value FROM json_each(${ph("slugs")}))`, eq(fleetEntries.active, true)))
      .prepare();
  }

  async activeEntriesAmong(slugs: readonly string[]): Promise<FleetEntry[]> {
    return slugs.length === 0 ? [] : this.among.all({ slugs: JSON.stringify(slugs) }).map(toEntry);
  }

  async activeEntries(netid: string): Promise<FleetEntry[]> {
    return this.active.all({ netid }).map(toEntry);
  }

  async activeEntriesBySlug(netid: string, slugs: readonly string[]): Promise<FleetEntry[]> {
    const out: FleetEntry[] = [];
    for (let i = 0; i < slugs.length; i += SLUG_BATCH) {
      const batch = slugs.slice(i, i + SLUG_BATCH);
      const rows = this.db
        .select()
        .from(fleetEntries)
        .where(and(inArray(fleetEntries.slug, batch), eq(fleetEntries.netid, netid), eq(fleetEntries.active, true)))
        .all();
      for (const r of rows) out.push(toEntry(r));
    }
    return out;
  }

  async activeEntriesListing(netid: string, iata: string): Promise<FleetEntry[]> {
    return this.listing.all({ netid, code: iata }).map(toEntry);
  }
}
