import { ValidationError } from "../errors";
import type { AirportDirectory } from "../airports";
import type { CurrencyDirectory } from "../currency";
import { minorUnitOf, formatMinorUnits } from "../currency";
import type { IntegrationRepository } from "../delivery/ports";
import type { FleetEntry } from "../fleet/entry";
import type { FleetSearchIndex, GeoHit } from "../fleet/ports";
import { greatCircleKm } from "../geo";
import { placePickup, type Gazetteer } from "../trips/pickup-place";
import { pickupTimeRefusal } from "../trips/pickup-time";
import { pickupInstant, positionOf, type TimeZones } from "../trips/places";
import type { ProviderFleet } from "../trips/ports";
import { bookedQuarterHours, estimatedQuarterHours, fitsTrip, vehicleFeeMinorUnits } from "../trips/quote";
import { servesPickup } from "../trips/service-area";
import { serviceAreaOf, serviceRadiusOf } from "../usecases/quote-provider";
import type { NewTripRequest } from "../trips/send-trip-request";
import type { TripWarning } from "../trips/warnings";
import { MAX_OPTIONS_PER_PROVIDER, type PricedVehicle } from "./network-quote";

/** What the network quote needs priced: every provider's serving vehicles that fit the party. */
export interface NetworkPricing {
  /**
   * Every provider's active vehicles serving the trip's pickup that seat the party (and hold its luggage when
   * given), priced for the trip in their own currency's minor unit, and the pickup country's currency when known.
   * A pickup that cannot be placed, or whose time is past or too far ahead: 400.
   */
  priceServingVehicles(req: NewTripRequest, now: number): Promise<{ vehicles: PricedVehicle[]; pickupCurrency?: string; warnings: TripWarning[] }>;
}

export interface NetworkPricingDeps {
  index: Pick<FleetSearchIndex, "search" | "unlocated">;
  fleet: Pick<ProviderFleet, "activeEntriesAmong" | "activeEntriesListing">;
  integrations: Pick<IntegrationRepository, "get" | "largestServiceRadiusKm">;
  airports: AirportDirectory;
  gazetteer: Gazetteer;
  timeZones: TimeZones;
  currencies: CurrencyDirectory;
}

/** Upper bound on the vehicles one network quote reads from the index around a pickup. */
const MAX_CANDIDATES = 200_000;
/**
 * Per provider, the vehicles read back from storage (for currency and the stored fields): its cheapest fitting
 * ones by the index's rates. Enough for its 5 options unless it prices the same pickup in several currencies.
 */
const READ_PER_PROVIDER = MAX_OPTIONS_PER_PROVIDER * 4;

/**
 * Network pricing through the geo index: one circle around the pickup as wide as the largest service radius any
 * provider set, each hit kept when it stands within its own provider's radius and fits the party; plus, for the
 * providers met there or holding vehicles without a position that list the pickup airport, their vehicles listing
 * that airport. Each provider's cheapest candidates are read back from storage (active, still serving, their
 * currency) and priced as a QUOTE to that provider is.
 */
export function indexNetworkPricing(deps: NetworkPricingDeps): NetworkPricing {
  return {
    async priceServingVehicles(req, now) {
      const pickup = req.trip.locations.pickup;
      const placed = placePickup(pickup, deps);
      if (!placed.placed) throw new ValidationError([{ field: placed.field, message: placed.message }], undefined, placed.reason === "UNKNOWN_AIRPORT" ? "UNKNOWN_AIRPORT" : "PICKUP_NOT_LOCATED");
      const pickupDate = pickupInstant(pickup, deps.airports, deps.timeZones, placed.position);
      const timeRefusal = pickupDate !== undefined ? pickupTimeRefusal(pickupDate, now) : undefined;
      if (timeRefusal) throw timeRefusal;

      const { position } = placed;
      const iata = placed.airport?.iata;
      const widest = await deps.integrations.largestServiceRadiusKm();
      const { hits } = deps.index.search({ centres: [position], radiusKm: widest, types: undefined, words: [], offset: 0, limit: MAX_CANDIDATES });
      const byProvider = new Map<string, GeoHit[]>();
      for (const hit of hits) {
        if (hit.entry.maxPassengers < req.passengerCount) continue;
        if (req.luggageCount !== undefined && (hit.entry.maxLuggage === null || hit.entry.maxLuggage < req.luggageCount)) continue;
        const list = byProvider.get(hit.entry.netid);
        if (list) list.push(hit);
        else byProvider.set(hit.entry.netid, [hit]);
      }
      const listing = new Set<string>();
      if (iata !== undefined) for (const u of deps.index.unlocated([iata], { types: undefined, words: [] })) listing.add(u.netid);

      const dropOff = positionOf(req.trip.locations.dropOff, deps.airports);
      const quarterHours = req.tripMinutes ? bookedQuarterHours(req.tripMinutes) : estimatedQuarterHours(position, dropOff);
      const providers = [...new Set([...byProvider.keys(), ...listing])];
      // Per provider: its area, its hits within its own radius ranked by the index's rates, the cheapest kept.
      const plans = await Promise.all(
        providers.map(async (netid) => {
          const area = serviceAreaOf(placed, await serviceRadiusOf(deps.integrations, netid));
          const near = (byProvider.get(netid) ?? []).filter((h) => h.distanceKm <= area.radiusKm);
          near.sort((a, b) => vehicleFeeMinorUnits(a.entry, quarterHours, 2) - vehicleFeeMinorUnits(b.entry, quarterHours, 2) || a.distanceKm - b.distanceKm);
          const listed = iata !== undefined && (listing.has(netid) || near.length > 0) ? await deps.fleet.activeEntriesListing(netid, iata) : [];
          return { netid, area, slugs: near.slice(0, READ_PER_PROVIDER).map((h) => h.entry.slug), listed };
        }),
      );
      // Every provider's candidates read back in one go: active, still serving, with their currency.
      const read = await deps.fleet.activeEntriesAmong(plans.flatMap((p) => p.slugs));
      const readByNetid = new Map<string, FleetEntry[]>();
      for (const e of read) {
        const list = readByNetid.get(e.netid);
        if (list) list.push(e);
        else readByNetid.set(e.netid, [e]);
      }
      const perProvider = plans.map(({ netid, area, listed }) => {
        const bySlug = new Map<string, FleetEntry>();
        for (const e of [...(readByNetid.get(netid) ?? []), ...listed]) if (e.netid === netid && fitsTrip(e, req) && servesPickup(e, area)) bySlug.set(e.slug, e);
        return [...bySlug.values()];
      });

      const vehicles: PricedVehicle[] = [];
      for (const entries of perProvider)
        for (const entry of entries) {
          const digits = minorUnitOf(deps.currencies, entry.currency);
          const units = vehicleFeeMinorUnits(entry, quarterHours, digits);
          const distanceKm = entry.lat !== null && entry.lon !== null ? greatCircleKm(position.lat, position.lon, entry.lat, entry.lon) : 0;
          vehicles.push({ entry, minorUnits: units, fee: formatMinorUnits(units, digits), distanceKm, preferred: false });
        }
      const pickupCurrency = placed.country ? deps.currencies.ofCountry(placed.country) : undefined;
      return { vehicles, ...(pickupCurrency ? { pickupCurrency } : {}), warnings: [] };
    },
  };
}
