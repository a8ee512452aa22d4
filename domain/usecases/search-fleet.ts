import type { AirportDirectory } from "../airports";
import type { Caller } from "../ports";
import type { FleetSearchIndex, GeoSearch } from "../fleet/ports";
import type { JsonBytes } from "../shared/json-bytes";
import { appliedLimit, parseFleetSearchQuery, round, scoreOf, type FleetSearchQuery, type RawFleetSearchQuery } from "../fleet/search";
import type { FleetEntry } from "../fleet/entry";
import { ValidationError } from "../errors";
import { ambiguousCityMessage, placeLabel, type Gazetteer } from "../trips/pickup-place";

export interface SearchFleetDeps {
  index: FleetSearchIndex;
  airports: AirportDirectory;
  /** Places a `city` centre (docs/places.md) as a pickup's city is placed. */
  gazetteer: Pick<Gazetteer, "city">;
}

/** A fleet item of the search result (spec "Fleet item"); rates are JSON numbers. */
export type FleetItem = Pick<FleetEntry, "netid" | "type" | "name" | "description" | "imageUrl" | "maxPassengers" | "maxLuggage" | "slug"> & {
  lat: number;
  lon: number;
  distanceKm: number;
  score: number;
  minimum_rate: number;
  hourly_rate: number;
  /** ISO 4217: the currency of the vehicle's rates (docs/places.md). */
  currency: string;
};

/** A non-fatal problem reported with status 200 (spec "Search warning"). */
export type SearchWarning =
  | { code: "UNRESOLVABLE_AIRPORT"; netid: ""; airport: string; detail: string }
  | { code: "MISSING_GPS"; netid: string; detail: string }
  | { code: "PICKUP_CITY_AMBIGUOUS"; netid: ""; city: string; detail: string };

export interface FleetSearchResult {
  items: FleetItem[];
  total: number;
  limit: number;
  offset: number;
  warnings: SearchWarning[];
}

/** A checked fleet search: the normalised query, the limit the caller's plan applies and the resolved centres. */
export interface PlannedFleetSearch {
  query: FleetSearchQuery;
  limit: number;
  centres: Array<{ lat: number; lon: number }>;
  /** PICKUP_CITY_AMBIGUOUS when the city centre matched other places of a similar size. */
  cityWarning?: SearchWarning;
  /**
   * Everything the answer depends on besides the fleet: two searches with the same key get the same answer
   * from the same index generation (the caller's plan counts only through the applied limit).
   */
  key: string;
}

/** Checks the parameters (400 naming each failing one), applies the plan's limit and resolves the airport centres. */
export function planFleetSearch(deps: Pick<SearchFleetDeps, "airports" | "gazetteer">, caller: Caller, raw: RawFleetSearchQuery): PlannedFleetSearch {
  const query = parseFleetSearchQuery(raw);
  const limit = appliedLimit(caller.plan, query.limit);
  const centres: Array<{ lat: number; lon: number }> = [];
  for (const code of query.airports) {
    const airport = deps.airports.lookup(code);
    if (airport) centres.push({ lat: airport.lat, lon: airport.lon });
  }
  if (query.position) centres.push(query.position);
  let cityWarning: SearchWarning | undefined;
  let cityCentre: [number, number] | null = null;
  if (query.city) {
    const place = deps.gazetteer.city(query.city);
    if (!place) {
      const where = query.city.state || query.city.country ? " in that state/country" : "";
      throw new ValidationError([{ field: "city", message: `${JSON.stringify(query.city.city.slice(0, 100))} is not a known city${where}` }]);
    }
    centres.push({ lat: place.lat, lon: place.lon });
    cityCentre = [place.lat, place.lon];
    const asked = query.city.city;
    if ((place.alsoMatches ?? []).length > 0)
      cityWarning = { code: "PICKUP_CITY_AMBIGUOUS", netid: "", city: placeLabel(place, asked), detail: ambiguousCityMessage(asked, place) };
  }
  const { airports, position, types, words, radiusKm, offset } = query;
  const key = JSON.stringify([airports, position ? [position.lat, position.lon] : null, cityCentre, types ?? null, words, radiusKm, offset, limit]);
  return { query, limit, centres, key, ...(cityWarning ? { cityWarning } : {}) };
}

/**
 * Search fleet: check the parameters, resolve the airport centres (warning on unknown codes), add the
 * explicit position, search the index within the radius with the type and text filters, page by the
 * plan's limit, and warn about companies whose matching vehicles at a requested airport have no position.
 */
export function searchFleet(deps: SearchFleetDeps, caller: Caller, raw: RawFleetSearchQuery): FleetSearchResult {
  return runFleetSearch(deps, planFleetSearch(deps, caller, raw));
}

/** Answers a planned search from the index as it is now. */
export function runFleetSearch(deps: SearchFleetDeps, plan: PlannedFleetSearch): FleetSearchResult {
  const { query, limit, centres } = plan;
  const { total, hits } = centres.length === 0 ? { total: 0, hits: [] } : deps.index.search(geoSearchOf(plan));
  const items: FleetItem[] = hits.map(({ entry, distanceKm }) => ({
    netid: entry.netid,
    type: entry.type,
    name: entry.name,
    description: entry.description,
    imageUrl: entry.imageUrl,
    maxPassengers: entry.maxPassengers,
    maxLuggage: entry.maxLuggage,
    lat: entry.lat,
    lon: entry.lon,
    distanceKm: round(distanceKm, 2),
    score: scoreOf(distanceKm, query.radiusKm),
    minimum_rate: Number(entry.minimumRate),
    hourly_rate: Number(entry.hourlyRate),
    currency: entry.currency,
    slug: entry.slug,
  }));
  return { items, total, limit, offset: query.offset, warnings: warningsOf(deps, plan) };
}

/**
 * runFleetSearch with the page written into `out` as the JSON array of its items (the bytes
 * `JSON.stringify(result.items)` would be), without making an object per item; returns the rest of the result.
 */
export function writeFleetSearch(deps: SearchFleetDeps, plan: PlannedFleetSearch, out: JsonBytes): Omit<FleetSearchResult, "items"> {
  let total = 0;
  if (plan.centres.length === 0) out.ascii("[]");
  else total = deps.index.searchItemsJson(geoSearchOf(plan), out);
  return { total, limit: plan.limit, offset: plan.query.offset, warnings: warningsOf(deps, plan) };
}

function geoSearchOf({ query, limit, centres }: PlannedFleetSearch): GeoSearch {
  return { centres, radiusKm: query.radiusKm, types: query.types, words: query.words, offset: query.offset, limit };
}

/**
 * PICKUP_CITY_AMBIGUOUS for a city centre of several places, one UNRESOLVABLE_AIRPORT per unknown code, then one
 * MISSING_GPS per company with matching entries there without a position.
 */
function warningsOf(deps: SearchFleetDeps, plan: PlannedFleetSearch): SearchWarning[] {
  const { query } = plan;
  const warnings: SearchWarning[] = plan.cityWarning ? [plan.cityWarning] : [];
  for (const code of query.airports)
    if (!deps.airports.lookup(code))
      warnings.push({ code: "UNRESOLVABLE_AIRPORT", netid: "", airport: code, detail: `Airport code ${code} is not a known IATA code; it was ignored` });
  const filter = { types: query.types, words: query.words };
  for (const { netid, count, airports } of deps.index.unlocated(query.airports, filter)) {
    warnings.push({
      code: "MISSING_GPS",
      netid,
      detail: `${count} ${count === 1 ? "entry" : "entries"} of ${netid} serving ${airports.join(", ")} ${count === 1 ? "has" : "have"} no GPS ` +
        `position and ${count === 1 ? "is" : "are"} not in the results`,
    });
  }
  return warnings;
}
