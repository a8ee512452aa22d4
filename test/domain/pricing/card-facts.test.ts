import { expect, test } from "bun:test";
import { PackagedAirportDirectory } from "../../../adapters/airports/directory";
import { PackagedTimeZones } from "../../../adapters/airports/time-zones";
import { PackagedGazetteer } from "../../../adapters/gazetteer/cities";
import { cardFacts } from "../../../domain/pricing/card-facts";
import type { Trip } from "../../../domain/trips/booking";
import { placePickup } from "../../../domain/trips/pickup-place";
import { readPickupTime } from "../../../domain/trips/pickup-time";
import { pickupZone } from "../../../domain/trips/places";

// docs/places.md#the-pickups-clock: a card's hours read the pickup's wall clock in the pickup place's zone. cardFacts takes the clock
// readPickupTime read (no conversion back from the instant); it must be the clock the instant shows there.
const airports = new PackagedAirportDirectory();
const timeZones = new PackagedTimeZones();
const deps = { airports, timeZones, gazetteer: new PackagedGazetteer() };
const asked = { extras: [], stops: 0 };

const PICKUPS = [
  { locationType: "airport", address: "JFK" },
  { locationType: "airport", address: "LHR" },
  { locationType: "airport", address: "SYD" },
  { locationType: "address", address: "Paris", lat: "48.8566", lon: "2.3522" },
];
// The days of the 2027 changes in those places, and an ordinary day.
const DAYS = ["2027-03-14", "2027-11-07", "2027-03-28", "2027-10-31", "2027-04-04", "2027-10-03", "2027-06-15"];

test("the local time a card reads is the wall clock its pickup instant shows in the pickup's zone, every 10 minutes across the clock changes", () => {
  const wrong: string[] = [];
  let read = 0;
  for (const place of PICKUPS)
    for (const day of DAYS)
      for (let minute = 0; minute < 24 * 60; minute += 10) {
        const time = `${day}T${String(Math.floor(minute / 60)).padStart(2, "0")}:${String(minute % 60).padStart(2, "0")}`;
        const pickup = { ...place, time };
        const placed = placePickup(pickup, deps);
        if (!placed.placed) throw new Error(`${place.address} is not placed`);
        const pickupTime = readPickupTime(pickup, airports, timeZones, placed.position)!;
        const trip = { locations: { pickup } } as unknown as Trip;
        const facts = cardFacts(trip, placed, asked, pickupTime, deps);
        // What Intl shows at that instant there (time-zones.test.ts checks wallClockAt against Intl).
        const shown = timeZones.wallClockAt(pickupTime.at, pickupZone(pickup, airports, timeZones, placed.position))?.slice(0, 16);
        read++;
        if (facts.localTime !== shown) wrong.push(`${place.address} ${time}: ${facts.localTime} vs ${shown}`);
      }
  expect(read).toBe(PICKUPS.length * DAYS.length * 144);
  expect(wrong.slice(0, 5)).toEqual([]);
});

test("a time sent with an offset, or no read clock at all, is converted to the pickup's wall clock", () => {
  const pickup = { locationType: "airport", address: "JFK", time: "2027-11-07T06:30:00Z" };
  const placed = placePickup(pickup, deps);
  if (!placed.placed) throw new Error("JFK is not placed");
  const trip = { locations: { pickup } } as unknown as Trip;
  const pickupTime = readPickupTime(pickup, airports, timeZones, placed.position)!;
  expect(pickupTime.clock).toBeUndefined();
  // 06:30Z on the autumn day is 01:30 EST, the second of the two 01:30s.
  expect(cardFacts(trip, placed, asked, pickupTime, deps).localTime).toBe("2027-11-07T01:30");
  expect(cardFacts(trip, placed, asked, { at: Date.parse("2027-01-07T04:30:00Z") / 1000 }, deps).localTime).toBe("2027-01-06T23:30");
});
