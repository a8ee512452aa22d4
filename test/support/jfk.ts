import type { Harness } from "./harness";
import type { Party } from "./trips";

/**
 * What the tests of trips picked up at JFK share (holds, blackouts, the cascade): USD vehicles standing at the
 * airport (listing none), the trip from its terminal to Park Avenue, a party's bearer header, Unix seconds as ISO.
 */
export const JFK = { lat: 40.6413, lon: -73.7781 };

/** The fleet row of a USD vehicle of `type` at JFK for `netid` (4 seats, 4 bags), priced `hourly` an hour. */
function jfkRow(netid: string, slug: string, hourly: string, type: string) {
  return {
    slugBase: slug, netid, type, name: slug, description: "", imageUrl: null, maxPassengers: 4, maxLuggage: 4,
    lat: JFK.lat, lon: JFK.lon, airports: [], minimumRate: "0", hourlyRate: hourly, currency: "USD", active: true, createdAt: 0, updatedAt: 0,
  };
}

/** A USD sedan at JFK for `netid`, priced `hourly` an hour. */
export async function jfkSedan(h: Harness, netid: string, slug: string, hourly: string): Promise<void> {
  await jfkVehicle(h, netid, slug, hourly, "SEDAN");
}

/** A USD vehicle of `type` at JFK for `netid`, priced `hourly` an hour. */
export async function jfkVehicle(h: Harness, netid: string, slug: string, hourly: string, type: string): Promise<void> {
  await h.services.fleet.insertAll([jfkRow(netid, slug, hourly, type)]);
}

/**
 * USD sedans at JFK for `netid`, one per slug, saved at once: the i-th priced `hourly(i)` an hour (50.00 for the
 * first, a dollar more each next). Not yet indexed: tell the fleet index once every fleet is in.
 */
export async function jfkSedans(h: Harness, netid: string, slugs: string[], hourly = (i: number) => `${50 + i}.00`): Promise<void> {
  await h.services.fleet.insertAll(slugs.map((slug, i) => jfkRow(netid, slug, hourly(i), "SEDAN")));
}

/** A pickup at JFK at `time` (local, or an instant). */
export const jfkPickup = (time: string) => ({ locationType: "airport", address: "JFK", time });
/** The trips' drop-off. */
export const PARK_AVE = { locationType: "address", address: "200 Park Ave, New York, NY", lat: "40.7536", lon: "-73.9767" };

/** Two passengers picked up at JFK at `time` (local, or an instant) and driven to 200 Park Ave; `over` adds members. */
export function jfkTrip(time: string, over: Record<string, unknown> = {}) {
  return { passengerCount: "2", locations: { pickup: jfkPickup(time), dropOff: PARK_AVE }, ...over };
}

/** The passengers the trips name. */
export const ADA = [{ firstName: "Ada", lastName: "Lovelace" }];

/** Books option `quoteOptionId` of network quote `quoteId` for `who` (passengers ADA), with `extra` members; the answer. */
export function bookQuoted(h: Harness, who: Pick<Party, "jwt">, quoteId: string, quoteOptionId: string, requesterResNo: string, extra: Record<string, unknown> = {}) {
  return h.request("POST", `/api/quotes/${quoteId}/book`, { headers: bearer(who), body: { quoteOptionId, requesterResNo, passengers: ADA, ...extra } });
}

/** `who`'s schedule of vehicle `slug` over one UTC day (`YYYY-MM-DD`): the holds on it. */
export function scheduleOn(h: Harness, who: Party, slug: string, day: string) {
  return h.request("GET", `/api/fleet/${slug}/schedule?from=${day}T00:00:00Z&to=${day}T23:59:59Z`, { headers: bearer(who) });
}

export const bearer = (who: Pick<Party, "jwt">) => ({ authorization: `Bearer ${who.jwt}` });
export const iso = (seconds: number) => new Date(seconds * 1000).toISOString().replace(".000Z", "Z");
