import { ValidationError } from "../errors";
import type { AirportDirectory } from "../airports";
import type { FleetEntry } from "../fleet/entry";
import type { FleetSearchIndex } from "../fleet/ports";
import { formatCents } from "../money";
import { holdsLuggage } from "../trips/luggage";
import { airportOf, positionOf } from "../trips/places";
import { bookedQuarterHours, estimatedQuarterHours, vehicleFeeCents } from "../trips/quote";
import type { NewTripRequest } from "../trips/send-trip-request";
import type { NetworkQuoteWarning, PricedVehicle } from "./network-quote";

/** What the network quote needs priced: every provider's serving vehicles that fit the party. */
export interface NetworkPricing {
  /**
   * Every provider's active vehicles serving the trip's pickup that seat the party (and hold its luggage when
   * given), priced for the trip, with the pickup country's currency when known. 400 naming `locations.pickup`
   * when the pickup cannot be placed.
   */
  priceServingVehicles(req: NewTripRequest, now: number): Promise<{ vehicles: PricedVehicle[]; pickupCurrency?: string; warnings: NetworkQuoteWarning[] }>;
}

/** Upper bound on the vehicles one network quote reads around a pickup. */
const MAX_CANDIDATES = 100_000;
const DEFAULT_RADIUS_KM = 50;

/** Network pricing over the geo index: the circle around the pickup, the entries read back for their currency. */
export function indexNetworkPricing(deps: {
  index: Pick<FleetSearchIndex, "search">;
  fleet: { find(netid: string, slug: string): Promise<FleetEntry | undefined> };
  airports: AirportDirectory;
}): NetworkPricing {
  return {
    async priceServingVehicles(req) {
      const pickup = req.trip.locations.pickup;
      const position = positionOf(pickup, deps.airports);
      if (!position) throw new ValidationError([{ field: "locations.pickup", message: "cannot be placed: give lat and lon, or an airport's IATA code" }]);
      const airport = airportOf(pickup, deps.airports)?.iata;
      void airport;
      const quarterHours = req.tripMinutes ? bookedQuarterHours(req.tripMinutes) : estimatedQuarterHours(position, positionOf(req.trip.locations.dropOff, deps.airports));
      const { hits } = deps.index.search({ centres: [position], radiusKm: DEFAULT_RADIUS_KM, types: undefined, words: [], offset: 0, limit: MAX_CANDIDATES });
      const vehicles: PricedVehicle[] = [];
      for (const hit of hits) {
        if (hit.entry.maxPassengers < req.passengerCount || !holdsLuggage(hit.entry.maxLuggage, req.luggageCount)) continue;
        const entry = await deps.fleet.find(hit.entry.netid, hit.entry.slug);
        if (!entry || !entry.active) continue;
        const cents = vehicleFeeCents(entry, quarterHours);
        vehicles.push({ entry, minorUnits: cents, fee: formatCents(cents), distanceKm: hit.distanceKm, preferred: false });
      }
      return { vehicles, warnings: [] };
    },
  };
}
