import { and, eq, sql } from "drizzle-orm";
import type { Statement } from "bun:sqlite";
import type { FleetEntry } from "../../domain/fleet/entry";
import type { ProviderFleet } from "../../domain/pricing/ports";
import type { Db } from "./db";
import { fleetEntries } from "./schema";

const ph = (name: string) => sql.placeholder(name);
/** A metre: SQL's float arithmetic may put an entry on the radius a hair outside where domain/geo.ts puts it. */
const SLACK_KM = 0.001;

type Row = typeof fleetEntries.$inferSelect;
const toEntry = (r: Row): FleetEntry => ({ ...r, airports: r.airports === "" ? [] : r.airports.split(",") });

/** The columns of a FleetEntry, read by raw statements (the hot path of a quote: thousands of rows at most). */
const ENTRY_COLUMNS =
  "f.slug, f.netid, f.type, f.name, f.description, f.image_url AS imageUrl, f.max_passengers AS maxPassengers, f.max_luggage AS maxLuggage, f.lat, " +
    "f.lon, f.airports, f.minimum_rate AS minimumRate, f.hourly_rate AS hourlyRate, f.currency, f.active, f.created_at AS createdAt, f.updated_at AS " +
    "updatedAt";
type RawRow = Omit<Row, "active"> & { active: number };
const fromRaw = (r: RawRow): FleetEntry => ({ ...r, active: r.active === 1, airports: r.airports === "" ? [] : r.airports.split(",") });

/** The provider fleet as quotes read it, straight from fleet_entries (the fleet feature owns its writes). */
export class SqliteProviderFleet implements ProviderFleet {
  private readonly active;
  private readonly bySlugs: Statement<RawRow, [string, string]>;
  private readonly among: Statement<RawRow, [string]>;
  private readonly listing: Statement<RawRow, [string, string]>;
  private readonly listingBeyond: Statement<RawRow, [string, string, number, number, number, number]>;

  constructor(db: Db) {
    this.active = db
      .select()
      .from(fleetEntries)
      .where(and(eq(fleetEntries.netid, ph("netid")), eq(fleetEntries.active, true)))
      .prepare();
    // Slugs as one JSON array: one prepared statement for any number, each row found by its primary key
    // (`+netid` keeps the planner off the netid index, which would read the provider's whole fleet).
    this.bySlugs = db.$client.query(
      `SELECT ${ENTRY_COLUMNS} FROM fleet_entries f WHERE f.slug IN (SELECT value FROM json_each(?)) AND +f.netid = ? AND f.active = 1`,
    );
    this.among = db.$client.query(`SELECT ${ENTRY_COLUMNS} FROM fleet_entries f WHERE f.slug IN (SELECT value FROM json_each(?)) AND f.active = 1`);
    this.listing = db.$client.query(
      `SELECT ${ENTRY_COLUMNS} FROM fleet_airports a JOIN fleet_entries f ON f.slug = a.slug WHERE a.netid = ? AND a.airport = ? AND f.active = 1`,
    );
    // The haversine of domain/geo.ts on the covering index (netid, airport, lat, lon, slug): only far rows are joined.
    this.listingBeyond = db.$client.query(
      `SELECT ${ENTRY_COLUMNS} FROM fleet_airports a INDEXED BY fleet_airports_place JOIN fleet_entries f ON f.slug = a.slug
       WHERE a.netid = ?1 AND a.airport = ?2 AND f.active = 1 AND (a.lat IS NULL OR a.lon IS NULL
         OR 2 * 6371 * asin(sqrt(min(1, cos(radians(a.lat)) * cos(radians(?3)) * pow(sin(radians(a.lon - ?4) / 2), 2)
            + pow(sin(radians(a.lat - ?3) / 2), 2)))) > ?5 - ?6)`,
    );
  }

  async activeEntriesAmong(slugs: readonly string[]): Promise<FleetEntry[]> {
    return slugs.length === 0 ? [] : this.among.all(JSON.stringify(slugs)).map(fromRaw);
  }

  async activeEntries(netid: string): Promise<FleetEntry[]> {
    return this.active.all({ netid }).map(toEntry);
  }

  async activeEntriesBySlug(netid: string, slugs: readonly string[]): Promise<FleetEntry[]> {
    if (slugs.length === 0) return [];
    return this.bySlugs.all(JSON.stringify(slugs), netid).map(fromRaw);
  }

  async activeEntriesListing(netid: string, iata: string): Promise<FleetEntry[]> {
    return this.listing.all(netid, iata).map(fromRaw);
  }

  async activeEntriesListingBeyond(netid: string, iata: string, centre: { lat: number; lon: number }, radiusKm: number): Promise<FleetEntry[]> {
    return this.listingBeyond.all(netid, iata, centre.lat, centre.lon, radiusKm, SLACK_KM).map(fromRaw);
  }
}
