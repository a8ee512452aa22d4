import type { AirportDirectory } from "../airports";
import type { CurrencyDirectory } from "../currency";
import type { IntegrationRepository } from "../delivery/ports";
import type { CircleMatches, FleetSearchIndex } from "../fleet/ports";
import { greatCircleKm } from "../geo";
import { pickupCityWarnings, placePickup, type Gazetteer } from "../trips/pickup-place";
import type { TripWarning } from "../trips/warnings";
import { pickupTimeRefusal, pickupTimeWarnings, readPickupTime } from "../trips/pickup-time";
import { positionOf, type Position, type TimeZones } from "../trips/places";
import type { Geocoder } from "../trips/ports";
import { placeRoute, routePositions, unplacedRefusal } from "../trips/drop-off-place";
import { bookedQuarterHours, estimatedQuarterHours, fitsTrip } from "./quote";
import { DEFAULT_SERVICE_RADIUS_KM } from "../trips/service-radius";
import type { Integration } from "../delivery/integration";
import type { NewTrip } from "../trips/send-trip-request";
import type { ProviderAdmission } from "../partners/admission";
import { DEFAULT_TURNAROUND_MINUTES, holdSpan, type HoldIndex } from "../fleet/holds";
import { rankCircle, type CircleRanking, type ExtraVehicle, type ProviderTerms, type RankInput } from "./network-rank";
import type { ProviderFleet, RateCardRepository } from "./ports";
import { askedExtras } from "./trip-extras";
import { cardFacts } from "./card-facts";
import type { CardTripFacts } from "./priced-quote";
import { leaveOutByCard, type LeftOutByCard } from "./network-leave-out";

/** The providers met around a pickup, before admission: a network quote decides whom it may offer, then ranks. */
export interface ServingProviders {
  /** Each provider met once: those with a vehicle in the widest circle seating the party, then (an airport pickup) those listing the airport. */
  netids: readonly string[];
  /** Their integrations (service radius, whom they take trips from), read at once. */
  integrations: ReadonlyMap<string, Integration>;
  /** The pickup instant (Unix seconds), when the pickup's time reads: each option's terms count from it. */
  pickupDate?: number;
  /**
   * The admitted providers' serving vehicles (`admission` by place in `netids`), priced for the trip and ranked (see
   * rankCircle): the quote's currency, its options, and how many serving vehicles other currencies left out.
   */
  rank(admission: ProviderAdmission, fx?: RankInput["fx"]): Promise<CircleRanking & Availability & LeftOutByCard>;
  /**
   * What placing the trip and reading its time warn of (PICKUP_CITY_AMBIGUOUS: a city name that matched several
   * places; DROPOFF_APPROXIMATE: a drop-off or stop placed at its city's centre; PICKUP_TIME_ADJUSTED: a wall-clock
   * time the spring change skips).
   */
  placeWarnings?: TripWarning[];
}

/** What the network quote needs priced: every provider's serving vehicles that fit the party. */
export interface NetworkPricing {
  /**
   * The providers with active vehicles serving the trip's pickup that seat the party (and hold its luggage when
   * given), ready to rank once admitted. A pickup, drop-off or stop that cannot be placed (400 naming each), or a
   * pickup time past or too far ahead: 400.
   */
  servingProviders(trip: NewTrip, now: number): Promise<ServingProviders>;
}

export interface NetworkPricingDeps {
  index: Pick<FleetSearchIndex, "circle" | "unlocated">;
  fleet: Pick<ProviderFleet, "activeEntriesListingBeyond">;
  integrations: Pick<IntegrationRepository, "getMany" | "largestServiceRadiusKm">;
  airports: AirportDirectory;
  gazetteer: Gazetteer;
  /** Places a drop-off's or stop's address (docs/places.md#drop-offs-and-stops); absent: by its city. */
  geocoder?: Geocoder;
  timeZones: TimeZones;
  currencies: CurrencyDirectory;
  /** Vehicles held by live bookings and blackouts (docs/availability.md); none left out without it. */
  holds?: HoldIndex;
  /** Providers' rate cards (docs/rates.md#how-a-vehicle-is-priced); absent: every vehicle at its own rates. */
  rateCards?: Pick<RateCardRepository, "getMany">;
}

/**
 * Network pricing through the geo index: one circle around the pickup as wide as the largest service radius any
 * provider set, read as columns (owner, rate, distance of every vehicle seating the party); each provider's
 * radius and admission decided once; for an airport pickup, the admitted providers met there (or holding vehicles
 * without a position that list the airport) add their vehicles listing it beyond their radius, read from storage.
 * Then rankCircle prices each distinct rate once and keeps the best as they stream by. The vehicles are as the
 * index has them (a fleet change reaches it within a second, as for a QUOTE to one provider).
 */
export function indexNetworkPricing(deps: NetworkPricingDeps): NetworkPricing {
  return {
    async servingProviders(req, now) {
      const pickup = req.trip.locations.pickup;
      const placed = placePickup(pickup, deps);
      // docs/places.md#drop-offs-and-stops: every place the quote is priced along, or 400 naming each it cannot place.
      const route = await placeRoute(req.trip.locations, deps);
      const unplaced = unplacedRefusal(placed, route);
      if (unplaced || !placed.placed) throw unplaced;
      const pickupTime = readPickupTime(pickup, deps.airports, deps.timeZones, placed.position);
      const pickupDate = pickupTime?.at;
      const timeRefusal = pickupDate !== undefined ? pickupTimeRefusal(pickupDate, now) : undefined;
      if (timeRefusal) throw timeRefusal;

      const { position } = placed;
      const iata = placed.airport?.iata;
      const widest = await deps.integrations.largestServiceRadiusKm();
      const matches = deps.index.circle({
        centre: position,
        radiusKm: widest,
        minPassengers: req.passengerCount,
        ...(req.luggageCount !== undefined ? { minLuggage: req.luggageCount } : {}),
      });

      // The providers met in the circle, then those holding vehicles without a position that list the airport.
      const owners: number[] = [];
      const seen = new Uint8Array(matches.owners);
      for (let i = 0; i < matches.count; i++) {
        const o = matches.owner[i];
        if (seen[o] === 0) {
          seen[o] = 1;
          owners.push(o);
        }
      }
      const netids = owners.map((o) => matches.netid(o));
      const extraNetids: string[] = [];
      const listing = new Set<string>();
      if (iata !== undefined) {
        const ownerByNetid = new Map(netids.map((netid, k) => [netid, owners[k]]));
        for (const u of deps.index.unlocated([iata], { types: undefined, words: [] })) {
          listing.add(u.netid);
          if (ownerByNetid.has(u.netid)) continue;
          ownerByNetid.set(u.netid, matches.owners + extraNetids.length);
          extraNetids.push(u.netid);
          owners.push(matches.owners + extraNetids.length - 1);
          netids.push(u.netid);
        }
      }
      const integrations = await deps.integrations.getMany(netids);
      // What a rate card reads of the trip besides positions (its extras were checked with the request).
      const trip = req.trip as unknown as { extra?: { extras?: unknown }; extras?: unknown } & Parameters<typeof askedExtras>[0];
      const asked = askedExtras({ locations: trip.locations, extras: trip.extra?.extras ?? trip.extras });
      const facts = cardFacts(req.trip, placed, asked, pickupTime ?? { at: now }, deps);
      const { dropOff, stops } = routePositions(route);
      const met: Met = {
        ...{ now, pickupDate, req, position, dropOff, stops, country: placed.country, iata },
        ...{ matches, owners, netids, extraNetids, listing, integrations, facts },
      };
      return {
        netids,
        integrations,
        ...(pickupDate !== undefined ? { pickupDate } : {}),
        rank: (admission, fx) => rankAdmitted(deps, met, admission, fx),
        placeWarnings: [...pickupCityWarnings(placed), ...pickupTimeWarnings(pickupTime), ...route.warnings],
      };
    },
  };
}

/** What the circle around a pickup met: its matches, and each provider by owner number (then the extras' own). */
interface Met {
  now: number;
  pickupDate: number | undefined;
  req: NewTrip;
  position: { lat: number; lon: number };
  /** The drop-off and the stops as placed (docs/places.md#drop-offs-and-stops). */
  dropOff: Position | undefined;
  stops: Position[];
  country: string | undefined;
  iata: string | undefined;
  matches: CircleMatches;
  owners: number[];
  netids: string[];
  extraNetids: string[];
  /** Providers holding vehicles without a position that list the pickup airport. */
  listing: ReadonlySet<string>;
  integrations: ReadonlyMap<string, Integration>;
  facts: CardTripFacts;
}

/** Each provider's radius and admission decided once, an airport's vehicles beyond the circle read, then rankCircle. */
async function rankAdmitted(
  deps: NetworkPricingDeps,
  met: Met,
  admitted: ProviderAdmission,
  fx?: RankInput["fx"],
): Promise<CircleRanking & Availability & LeftOutByCard> {
  const { req, position, iata, matches, owners, netids, extraNetids, listing, integrations } = met;
  const netidOf = (o: number) => (o < matches.owners ? matches.netid(o) : extraNetids[o - matches.owners]);
  const size = matches.owners + extraNetids.length;
  const terms: ProviderTerms = { admitted: new Uint8Array(size), radiusKm: new Float64Array(size), preferredType: new Array<string | undefined>(size) };
  owners.forEach((o, k) => {
    terms.radiusKm[o] = integrations.get(netids[k])?.serviceRadiusKm ?? DEFAULT_SERVICE_RADIUS_KM;
    terms.admitted[o] = admitted.admitted[k];
    terms.preferredType[o] = admitted.preferredType[k];
  });

  const { dropOff, stops } = met;
  const quarterHours = req.tripMinutes ? bookedQuarterHours(req.tripMinutes) : estimatedQuarterHours(position, dropOff, stops);
  const availability = await leaveOutUnavailable(deps, met, terms, quarterHours);
  const byCard = await leaveOutByCard(deps, met, terms, { pickup: position, dropOff, stops, tripMinutes: req.tripMinutes, now: met.now });

  // An airport pickup: each admitted provider met there (a vehicle within its radius seats the party, or one
  // without a position lists the airport) adds its vehicles listing the airport that the circle cannot hold.
  const extras: ExtraVehicle[] = [];
  if (iata !== undefined) {
    const near = new Uint8Array(size);
    for (let i = 0; i < matches.count; i++) if (matches.distanceKm[i] <= terms.radiusKm[matches.owner[i]]) near[matches.owner[i]] = 1;
    const readers = owners.filter((o) => terms.admitted[o] === 1 && (near[o] === 1 || listing.has(netidOf(o))));
    const read = await Promise.all(readers.map((o) => deps.fleet.activeEntriesListingBeyond(netidOf(o), iata, position, terms.radiusKm[o])));
    readers.forEach((o, k) => {
      for (const entry of read[k]) {
        if (entry.netid !== netidOf(o) || !fitsTrip(entry, req)) continue;
        const located = entry.lat !== null && entry.lon !== null;
        const distanceKm = located ? greatCircleKm(position.lat, position.lon, entry.lat!, entry.lon!) : 0;
        // Within the radius: the circle holds it already.
        if (located && distanceKm <= terms.radiusKm[o]) continue;
        extras.push({ entry, owner: o, distanceKm });
      }
    });
  }

  const pickupCurrency = met.country ? deps.currencies.ofCountry(met.country) : undefined;
  const kept = extras.filter((x) => !terms.busy?.[x.owner]?.has(x.entry.slug));
  const extrasAsked = met.facts.extras.length > 0;
  const ranking = rankCircle({
    matches,
    extras: kept,
    netidOf,
    terms,
    quarterHours,
    pickupCurrency,
    currencies: deps.currencies,
    cards: byCard.cards,
    extrasAsked,
    ...(fx ? { fx } : {}),
  });
  return { ...ranking, ...availability, ...byCard.leftOut, busy: availability.busy + extras.length - kept.length };
}

/** What availability left out of a network quote: providers for short notice, vehicles for being held. */
export interface Availability {
  shortNotice: number;
  busy: number;
}

/**
 * docs/availability.md over the admitted providers: one whose `minimumNoticeMinutes` the pickup is sooner than is no longer
 * admitted; each remaining one's vehicles held over the trip (pickup to estimated end plus its turnaround) go into
 * `terms.busy`, and those the circle met within its radius are counted.
 */
async function leaveOutUnavailable(
  deps: NetworkPricingDeps,
  met: Met,
  terms: ProviderTerms,
  quarterHours: number,
): Promise<Availability> {
  const { owners, netids, integrations, matches, pickupDate } = met;
  let shortNotice = 0;
  let busy = 0;
  if (pickupDate === undefined) return { shortNotice, busy };
  const sets = new Array<ReadonlySet<string> | undefined>(terms.admitted.length);
  let anyBusy = false;
  const offering: number[] = [];
  owners.forEach((o, k) => {
    if (terms.admitted[o] !== 1) return;
    const notice = integrations.get(netids[k])?.minimumNoticeMinutes ?? 0;
    if (notice > 0 && pickupDate - met.now < notice * 60) {
      terms.admitted[o] = 0;
      shortNotice++;
      return;
    }
    offering.push(k);
  });
  if (!deps.holds) return { shortNotice, busy };
  // Only the holds of the providers this quote may offer (docs/availability.md#what-a-quote-reads).
  await deps.holds.ready(offering.map((k) => netids[k]));
  for (const k of offering) {
    if (!deps.holds.holdsAny(netids[k])) continue;
    const span = holdSpan(pickupDate, quarterHours, integrations.get(netids[k])?.turnaroundMinutes ?? DEFAULT_TURNAROUND_MINUTES);
    const held = deps.holds.busyNow(netids[k], span.from, span.to);
    if (held.size > 0) {
      sets[owners[k]] = held;
      anyBusy = true;
    }
  }
  if (anyBusy) {
    terms.busy = sets;
    for (let i = 0; i < matches.count; i++) {
      const o = matches.owner[i];
      if (sets[o] !== undefined && matches.distanceKm[i] <= terms.radiusKm[o] && sets[o]!.has(matches.slug(i))) busy++;
    }
  }
  return { shortNotice, busy };
}
