import { and, eq } from "drizzle-orm";
import type { FleetEntry } from "../../domain/fleet/entry";
import type { ProviderFleet } from "../../domain/trips/ports";
import type { PgDb } from "./db";
import { fleetEntries } from "./schema";

/** The provider fleet as quotes read it, straight from fleet_entries in PostgreSQL (the fleet feature owns its writes). */
export class PgProviderFleet implements ProviderFleet {
  constructor(private readonly db: PgDb) {}

  async activeEntries(netid: string): Promise<FleetEntry[]> {
    const rows = await this.db
      .select()
      .from(fleetEntries)
      .where(and(eq(fleetEntries.netid, netid), eq(fleetEntries.active, true)));
    return rows.map((r) => ({ ...r, airports: r.airports === "" ? [] : r.airports.split(",") }));
  }
}
