import { and, eq, sql } from "drizzle-orm";
import type { FleetEntry } from "../../domain/fleet/entry";
import type { ProviderFleet } from "../../domain/trips/ports";
import type { Db } from "./db";
import { fleetEntries } from "./schema";

const ph = (name: string) => sql.placeholder(name);

/** The provider fleet as quotes read it, straight from fleet_entries (the fleet feature owns its writes). */
export class SqliteProviderFleet implements ProviderFleet {
  private readonly active;

  constructor(db: Db) {
    this.active = db
      .select()
      .from(fleetEntries)
      .where(and(eq(fleetEntries.netid, ph("netid")), eq(fleetEntries.active, true)))
      .prepare();
  }

  async activeEntries(netid: string): Promise<FleetEntry[]> {
    return this.active.all({ netid }).map((r) => ({
      ...r,
      airports: r.airports === "" ? [] : r.airports.split(","),
    }));
  }
}

