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
  const zone = () => pickupZone(trip.locations.pickup ?? {}, deps.airports, deps.timeZones, placed.position);
  // `YYYY-MM-DDTHH:mm`, as the card's hours are written.
  const localTime = (pickup.clock?.local ?? deps.timeZones.wallClockAt(pickup.at, zone()))?.slice(0, 16);
  return {
    ...(placed.airport ? { pickupAirport: placed.airport.iata.toUpperCase() } : {}),
    ...(dropAirport ? { dropOffAirport: dropAirport.toUpperCase() } : {}),
    hourly: (trip.runType ?? "").trim().toUpperCase() === "HOURLY",
    ...(localTime ? { localTime } : {}),
    extras: asked.extras,
    stops: asked.stops,
  };
}
