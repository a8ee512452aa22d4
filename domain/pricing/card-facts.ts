import type { AirportDirectory } from "../airports";
import type { Trip } from "../trips/booking";
import type { PlacedPickup } from "../trips/pickup-place";
import { airportOf, pickupZone, type TimeZones } from "../trips/places";
import type { CardTripFacts } from "./priced-quote";
import { localWallClock } from "./card-pricing";
import type { AskedExtra } from "./trip-extras";

/** What a rate card reads of a trip besides positions: its airports, whether it is hourly, the pickup's local clock, its extras. */
export function cardFacts(
  trip: Trip,
  placed: PlacedPickup,
  asked: { extras: AskedExtra[]; stops: number },
  pickupAt: number,
  deps: { airports: AirportDirectory; timeZones: TimeZones },
): CardTripFacts {
  const pickup = trip.locations.pickup;
  const zone = pickupZone(pickup ?? {}, deps.airports, deps.timeZones, placed.position);
  const dropAirport = trip.locations.dropOff ? airportOf(trip.locations.dropOff, deps.airports)?.iata : undefined;
  const localTime = localWallClock(pickupAt, zone);
  return {
    ...(placed.airport ? { pickupAirport: placed.airport.iata.toUpperCase() } : {}),
    ...(dropAirport ? { dropOffAirport: dropAirport.toUpperCase() } : {}),
    hourly: (trip.runType ?? "").trim().toUpperCase() === "HOURLY",
    ...(localTime ? { localTime } : {}),
    extras: asked.extras,
    stops: asked.stops,
  };
}
