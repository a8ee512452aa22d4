import { and, eq, getTableColumns, inArray } from "drizzle-orm";
import type { FleetEntry } from "../../domain/fleet/entry";
import type { ProviderFleet } from "../../domain/trips/ports";
import type { PgDb } from "./db";
import { fleetAirports, fleetEntries } from "./schema";

type Row = typeof fleetEntries.$inferSelect;
const toEntry = (r: Row): FleetEntry => ({ ...r, airports: r.airports === "" ? [] : r.airports.split(",") });
const SLUG_BATCH = 1000;

/** The provider fleet as quotes read it, straight from fleet_entries in PostgreSQL (the fleet feature owns its writes). */
export class PgProviderFleet implements ProviderFleet {
  constructor(private readonly db: PgDb) {}

  async activeEntries(netid: string): Promise<FleetEntry[]> {
    const rows = await this.db
      .select()
      .from(fleetEntries)
      .where(and(eq(fleetEntries.netid, netid), eq(fleetEntries.active, true)));
    return rows.map(toEntry);
  }

  async activeEntriesBySlug(netid: string, slugs: readonly string[]): Promise<FleetEntry[]> {
    const out: FleetEntry[] = [];
    for (let i = 0; i < slugs.length; i += SLUG_BATCH) {
      const rows = await this.db
        .select()
        .from(fleetEntries)
        .where(and(inArray(fleetEntries.slug, slugs.slice(i, i + SLUG_BATCH)), eq(fleetEntries.netid, netid), eq(fleetEntries.active, true)));
      for (const r of rows) out.push(toEntry(r));
    }
    return out;
  }

  async activeEntriesAmong(slugs: readonly string[]): Promise<FleetEntry[]> {
    const out: FleetEntry[] = [];
    for (let i = 0; i < slugs.length; i += SLUG_BATCH) {
      const rows = await this.db
        .select()
        .from(fleetEntries)
        .where(and(inArray(fleetEntries.slug, slugs.slice(i, i + SLUG_BATCH)), eq(fleetEntries.active, true)));
      for (const r of rows) out.push(toEntry(r));
    }
    return out;
  }

  async activeEntriesListing(netid: string, iata: string): Promise<FleetEntry[]> {
    const rows = await this.db
      .select(getTableColumns(fleetEntries))
      .from(fleetAirports)
      .innerJoin(fleetEntries, eq(fleetEntries.slug, fleetAirports.slug))
      .where(and(eq(fleetAirports.netid, netid), eq(fleetAirports.airport, iata), eq(fleetEntries.active, true)));
    return rows.map(toEntry);
  }
}
