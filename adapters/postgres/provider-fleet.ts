import { and, eq, getTableColumns, inArray, isNull, or, sql } from "drizzle-orm";
import type { FleetEntry } from "../../domain/fleet/entry";
import type { ProviderFleet } from "../../domain/pricing/ports";
import type { PgDb } from "./db";
import { fleetAirports, fleetEntries } from "./schema";

type Row = typeof fleetEntries.$inferSelect;
const toEntry = (r: Row): FleetEntry => ({ ...r, airports: r.airports === "" ? [] : r.airports.split(",") });
const SLUG_BATCH = 1000;
/** A metre: SQL's float arithmetic may put an entry on the radius a hair outside where domain/geo.ts puts it. */
const SLACK_KM = 0.001;

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

  async activeEntriesListingBeyond(netid: string, iata: string, centre: { lat: number; lon: number }, radiusKm: number): Promise<FleetEntry[]> {
    const a = fleetAirports;
    // The haversine of domain/geo.ts, on the covering index (netid, airport, lat, lon, slug): only far rows are joined.
    const distance = sql`2 * 6371 * asin(sqrt(least(1, cos(radians(${a.lat})) * cos(radians(${centre.lat}::float8))
      * power(sin(radians(${a.lon} - ${centre.lon}::float8) / 2), 2)
      + power(sin(radians(${a.lat} - ${centre.lat}::float8) / 2), 2))))`;
    const rows = await this.db
      .select(getTableColumns(fleetEntries))
      .from(a)
      .innerJoin(fleetEntries, eq(fleetEntries.slug, a.slug))
      .where(
        and(
          eq(a.netid, netid),
          eq(a.airport, iata),
          eq(fleetEntries.active, true),
          or(isNull(a.lat), isNull(a.lon), sql`${distance} > ${radiusKm - SLACK_KM}::float8`),
        ),
      );
    return rows.map(toEntry);
  }
}
