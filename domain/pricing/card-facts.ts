import type { AirportDirectory } from "../airports";
import type { Trip } from "../trips/booking";
import type { PlacedPickup } from "../trips/pickup-place";
import type { PickupTime } from "../trips/pickup-time";
import { airportOf, pickupZone, type TimeZones } from "../trips/places";
import type { CardTripFacts } from "./priced-quote";
import type { AskedExtra } from "./trip-extras";

/**
 * What a rate card reads of a trip besides positions: its airports, whether it is hourly, the pickup's local clock, its
 * extras. `pickup`: the pickup's instant, with its wall clock when readPickupTime read it in the pickup's zone (the
 * clock is then taken as read, not converted back from the instant).
 */
export function cardFacts(
  trip: Trip,
  placed: PlacedPickup,
  asked: { extras: AskedExtra[]; stops: number },
  pickup: Pick<PickupTime, "at" | "clock">,
  deps: { airports: AirportDirectory; timeZones: TimeZones },
): CardTripFacts {
  const dropAirport = trip.locations.dropOff ? airportOf(trip.locations.dropOff, deps.airports)?.iata : undefined;
  const localTime = pickup.clock
    ? pickup.clock.local.slice(0, 16)
    : localWallClock(pickup.at, pickupZone(trip.locations.pickup ?? {}, deps.airports, deps.timeZones, placed.position));
  return {
    ...(placed.airport ? { pickupAirport: placed.airport.iata.toUpperCase() } : {}),
    ...(dropAirport ? { dropOffAirport: dropAirport.toUpperCase() } : {}),
    hourly: (trip.runType ?? "").trim().toUpperCase() === "HOURLY",
    ...(localTime ? { localTime } : {}),
    extras: asked.extras,
    stops: asked.stops,
  };
}

/** The pickup's wall clock `YYYY-MM-DDTHH:mm` in `zone` at Unix second `at`. */
export function localWallClock(at: number, zone: string): string | undefined {
  try {
    let f = clocks.get(zone);
    if (!f) {
      const two = "2-digit" as const;
      f = new Intl.DateTimeFormat("en-CA", { timeZone: zone, year: "numeric", month: two, day: two, hour: two, minute: two, hourCycle: "h23" });
      clocks.set(zone, f);
    }
    const p = Object.fromEntries(f.formatToParts(new Date(at * 1000)).map((x) => [x.type, x.value]));
    return `${p.year}-${p.month}-${p.day}T${p.hour}:${p.minute}`;
  } catch {
    return undefined;
  }
}
const clocks = new Map<string, Intl.DateTimeFormat>();
