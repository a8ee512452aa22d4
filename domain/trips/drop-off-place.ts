import type { Airport, AirportDirectory } from "../airports";
import { ValidationError, type FieldError } from "../errors";
import type { TripLocation, TripLocations } from "./booking";
import { placeLabel, unknownAirportCode, type Gazetteer, type PickupPlacement, type PlacedBy } from "./pickup-place";
import { airportOf, readCoordinate, type Position } from "./places";
import type { Geocoder } from "./ports";
import type { TripWarning } from "./warnings";

/**
 * Placing a trip's drop-off and stops (docs/places.md#drop-offs-and-stops), as the pickup is placed and one step
 * more: its coordinates; else the airport it names by IATA code; else, when the service has a geocoder, its address;
 * else its city (+ state, country) from the gazetteer, the city's centre — approximate, so the quote warns.
 */

/** How a drop-off or stop was placed: the pickup's ways, and `address` (the geocoder found it). */
export type StopPlacedBy = PlacedBy | "address";

/** Where a drop-off or a stop is: its position for the price, and how the exchange knows it. */
export interface PlacedStop {
  position: Position;
  by: StopPlacedBy;
  /** The airport it names, when the directory knows it. */
  airport?: Airport;
  /** ISO 3166-1 alpha-2, when known. */
  country?: string;
}

/** A trip's drop-off and stops placed, with what placing them warns of. */
export interface PlacedRoute {
  /** undefined when the trip has no drop-off or nothing places it (then `unplaced` names it). */
  dropOff: PlacedStop | undefined;
  /** Every stop that could be placed, in the trip's order (a stop nothing places is named in `unplaced`). */
  stops: PlacedStop[];
  /** DROPOFF_APPROXIMATE for each place found by its city only. */
  warnings: TripWarning[];
  /** Each place nothing could place: `locations.dropOff`, `locations.stops[1]`, and why. */
  unplaced: FieldError[];
}

export interface RoutePlacingDeps {
  airports: AirportDirectory;
  gazetteer: Gazetteer;
  /** Places addresses (GEOCODER_URL); absent: an address is placed by its city. */
  geocoder?: Geocoder;
}

/** The most stops a trip is placed with (a trip's request limits keep them far fewer). */
const MAX_PLACED_STOPS = 100;
/** The most places of one trip the geocoder is asked for (the drop-off first, then the stops in order); the rest by city. */
export const MAX_SEARCHES_PER_TRIP = 10;
const ALPHA2 = /^[A-Za-z]{2}$/;

/**
 * The trip's drop-off and stops placed (docs/places.md#drop-offs-and-stops), looked up together; one trip asks the
 * geocoder for at most MAX_SEARCHES_PER_TRIP of them, so a trip of many stops cannot turn into as many searches.
 */
export async function placeRoute(locations: TripLocations | undefined, deps: RoutePlacingDeps): Promise<PlacedRoute> {
  const stops = (locations?.stops ?? []).slice(0, MAX_PLACED_STOPS);
  const dropOff = locations?.dropOff;
  const route: PlacedRoute = { dropOff: undefined, stops: [], warnings: [], unplaced: [] };
  if (!dropOff && stops.length === 0) return route;
  // Each search is taken from the budget as its place is started: the drop-off's first.
  const budget = { searches: MAX_SEARCHES_PER_TRIP };
  const placingDropOff = dropOff ? placeStop(dropOff, "locations.dropOff", deps, budget) : undefined;
  const placingStops = stops.map((stop, i) => placeStop(stop, `locations.stops[${i}]`, deps, budget));
  const placing = [...placingStops, placingDropOff];
  // Only a geocoder search waits: places by coordinates, airport or city are known at once.
  const places = placing.some((p) => p instanceof Promise)
    ? await Promise.all(placing)
    : (placing as Array<StopOutcome | undefined>);
  for (const placed of places) {
    if (!placed) continue;
    if (placed.warning) route.warnings.push(placed.warning);
    if (placed.problem) route.unplaced.push(placed.problem);
    else if (placed.field === "locations.dropOff") route.dropOff = placed.stop;
    else route.stops.push(placed.stop!);
  }
  return route;
}

/** The positions a quote is priced along: the drop-off's and each placed stop's. */
export function routePositions(route: PlacedRoute): { dropOff: Position | undefined; stops: Position[] } {
  return { dropOff: route.dropOff?.position, stops: route.stops.map((s) => s.position) };
}

/**
 * The 400 of a quote that must be priced along every place (POST /api/quotes): each place nothing could place named;
 * the code names the rule when one kind failed (PICKUP_NOT_LOCATED or UNKNOWN_AIRPORT, DROPOFF_NOT_LOCATED), else
 * VALIDATION_FAILED. Undefined when every place was placed.
 */
export function unplacedRefusal(pickup: PickupPlacement, route: PlacedRoute): ValidationError | undefined {
  if (pickup.placed && route.unplaced.length === 0) return undefined;
  if (pickup.placed) return new ValidationError(route.unplaced, undefined, "DROPOFF_NOT_LOCATED");
  const errors = [{ field: pickup.field, message: pickup.message }, ...route.unplaced];
  if (route.unplaced.length > 0) return new ValidationError(errors);
  return new ValidationError(errors, undefined, pickup.reason === "UNKNOWN_AIRPORT" ? "UNKNOWN_AIRPORT" : "PICKUP_NOT_LOCATED");
}

/**
 * DROPOFF_NOT_LOCATED warnings for the places nothing could place: a provider QUOTE prices them by the rules that
 * need no drop-off (hourly, the vehicle's own rates) and along the stops it could place.
 */
export function unplacedWarnings(route: PlacedRoute): TripWarning[] {
  return route.unplaced.map((u) => ({
    code: "DROPOFF_NOT_LOCATED",
    field: u.field,
    message: `${u.field} ${u.message}; priced by the rules that need no ${u.field === "locations.dropOff" ? "drop-off" : "stop"}`,
  }));
}

interface StopOutcome {
  field: string;
  stop?: PlacedStop;
  warning?: TripWarning;
  problem?: FieldError;
}

/**
 * One place: coordinates, an airport, the geocoder's answer for its address, else its city's centre. A promise only
 * when the geocoder is asked.
 */
function placeStop(
  location: TripLocation,
  field: string,
  deps: RoutePlacingDeps,
  budget: { searches: number },
): StopOutcome | Promise<StopOutcome> {
  const ownCountry = ALPHA2.test((location.country ?? "").trim()) ? (location.country as string).trim().toUpperCase() : undefined;
  const airport = airportOf(location, deps.airports);
  const lat = readCoordinate(location.lat, 90);
  const lon = readCoordinate(location.lon, 180);
  if (lat !== undefined && lon !== undefined) {
    const country = airport?.country ?? ownCountry;
    return { field, stop: { position: { lat, lon }, by: "coordinates", ...(airport ? { airport } : {}), ...(country ? { country } : {}) } };
  }
  if (airport) {
    const country = airport.country ?? ownCountry;
    return { field, stop: { position: { lat: airport.lat, lon: airport.lon }, by: "airport", airport, ...(country ? { country } : {}) } };
  }
  // An airport code nobody knows is not an address to search for.
  const unknown = unknownAirportCode(location, deps.airports);
  const addressed = !unknown && ((location.address ?? "").trim() !== "" || (location.landmark ?? "").trim() !== "");
  if (addressed && deps.geocoder && budget.searches-- > 0)
    return searched(location, field, deps, deps.geocoder, addressText(location), ownCountry);
  return byCity(location, field, deps, addressed, unknown);
}

/** A place by the geocoder's answer for its address; else as byCity places it. */
async function searched(
  location: TripLocation,
  field: string,
  deps: RoutePlacingDeps,
  geocoder: Geocoder,
  text: string,
  ownCountry: string | undefined,
): Promise<StopOutcome> {
  const [found] = await geocoder.search(text, 1);
  if (!found) return byCity(location, field, deps, true, undefined);
  const country = found.country ?? ownCountry;
  return { field, stop: { position: { lat: found.lat, lon: found.lon }, by: "address", ...(country ? { country } : {}) } };
}

/**
 * A place by its city's centre (DROPOFF_APPROXIMATE), or the reason nothing places it. `addressed`: it gives an
 * address (not found, or no geocoder to ask); `unknown`: an airport code nobody knows that it names.
 */
function byCity(
  location: TripLocation,
  field: string,
  deps: RoutePlacingDeps,
  addressed: boolean,
  unknown: string | undefined,
): StopOutcome {
  const city = (location.city ?? "").trim();
  if (city !== "") {
    const state = (location.state ?? "").trim();
    const country = (location.country ?? "").trim();
    const place = deps.gazetteer.city({ city, ...(state ? { state } : {}), ...(country ? { country } : {}) });
    if (place) {
      const label = placeLabel(place, city);
      const why = addressed ? `: its address was not found${deps.geocoder ? "" : " (no geocoder)"}` : "";
      const warning: TripWarning = {
        code: "DROPOFF_APPROXIMATE",
        field,
        city: label,
        message: `${field} is placed at the centre of ${label}${why}; the price may change when exact coordinates come`,
      };
      return { field, stop: { position: { lat: place.lat, lon: place.lon }, by: "city", country: place.country }, warning };
    }
    const where = state || country ? " in that state/country" : "";
    return { field, problem: { field, message: `cannot be placed: city ${JSON.stringify(city.slice(0, 100))} is unknown${where}` } };
  }
  if (unknown) return { field, problem: { field, message: `names airport ${unknown}, which is not a known IATA code` } };
  return {
    field,
    problem: {
      field,
      message: !addressed
        ? "cannot be placed: send lat and lon, an airport's IATA code (locationType airport), an address, or city with state and country"
        : deps.geocoder
          ? "cannot be placed: its address was not found; send lat and lon, or city with state and country"
          : "cannot be placed by its address alone (the service has no geocoder): send lat and lon, or city with state and country",
    },
  };
}

/** What the geocoder is asked: the address (else the landmark), with the city, state, postcode and country it lacks. */
function addressText(location: TripLocation): string {
  const address = (location.address ?? "").trim() || (location.landmark ?? "").trim();
  const parts = [address];
  const lower = address.toLowerCase();
  for (const part of [location.city, location.state, location.zipCode, location.country]) {
    const s = typeof part === "string" ? part.trim() : "";
    if (s !== "" && !lower.includes(s.toLowerCase())) parts.push(s);
  }
  return parts.join(", ").slice(0, 300);
}
