import type { Harness } from "../../../support/harness";
import type { Party } from "../../../support/trips";

/** What the cascade tests share: one sedan at JFK per provider, its bearer header, Unix seconds as ISO. */
const JFK = { lat: 40.6413, lon: -73.7781 };

/** A USD sedan at JFK for `netid`, priced `hourly` an hour. */
export async function jfkSedan(h: Harness, netid: string, slug: string, hourly: string): Promise<void> {
  await jfkVehicle(h, netid, slug, hourly, "SEDAN");
}

/** A USD vehicle of `type` at JFK for `netid`, priced `hourly` an hour. */
export async function jfkVehicle(h: Harness, netid: string, slug: string, hourly: string, type: string): Promise<void> {
  await h.services.fleet.insertAll([
    {
      slugBase: slug, netid, type, name: slug, description: "", imageUrl: null, maxPassengers: 4, maxLuggage: 4,
      lat: JFK.lat, lon: JFK.lon, airports: [], minimumRate: "0", hourlyRate: hourly, currency: "USD", active: true, createdAt: 0, updatedAt: 0,
    },
  ]);
}

export const bearer = (who: Party) => ({ authorization: `Bearer ${who.jwt}` });
export const iso = (seconds: number) => new Date(seconds * 1000).toISOString().replace(".000Z", "Z");
