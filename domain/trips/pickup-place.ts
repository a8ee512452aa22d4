import type { Airport, AirportDirectory } from "../airports";
import type { TripLocation } from "./booking";
import { airportOf, pickupZone, readCoordinate, type Position, type TimeZones } from "./places";

/** A place a gazetteer knows: its position and country (ISO 3166-1 alpha-2). */
export interface GazetteerPlace {
  lat: number;
  lon: number;
  country: string;
}

/** Towns and cities of the world, offline; the adapter reads a maintained data package. */
export interface Gazetteer {
  /**
   * The one place `city` names, narrowed by `state` (code or name) and `country` (alpha-2 or name) when given;
   * undefined when it knows none, or several that the state and country do not tell apart.
   */
  city(query: { city: string; state?: string; country?: string }): GazetteerPlace | undefined;
  /** The country at a position (of the nearest known town within reach); undefined when none is near. */
  countryAt(lat: number, lon: number): string | undefined;
}

/** How a pickup was placed. */
export type PlacedBy = "coordinates" | "airport" | "city";

/** Where a pickup is, for the service area, the currency and the price. */
export interface PlacedPickup {
  placed: true;
  position: Position;
  by: PlacedBy;
  /** The airport the pickup names (also when its coordinates placed it): vehicles listing it serve the pickup. */
  airport?: Airport;
  /** ISO 3166-1 alpha-2, when known: the airport's, the city's, the pickup's own `country`, or the one at its position. */
  country?: string;
}

/** Why a pickup could not be placed: an airport code nobody knows, or nothing to place it by. */
export interface UnplacedPickup {
  placed: false;
  reason: "UNKNOWN_AIRPORT" | "NOT_LOCATED";
  /** The field to name in a 400 (`locations.pickup`). */
  field: string;
  message: string;
}

export type PickupPlacement = PlacedPickup | UnplacedPickup;

const CODE = /^[A-Za-z]{3}$/;
const ALPHA2 = /^[A-Za-z]{2}$/;

/** The 3-letter code an airport pickup gives (address or landmark) that the directory does not know, if any. */
function unknownAirportCode(pickup: TripLocation, airports: AirportDirectory): string | undefined {
  if ((pickup.locationType ?? "").trim().toLowerCase() !== "airport") return undefined;
  for (const text of [pickup.address, pickup.landmark]) {
    const s = (text ?? "").trim();
    if (CODE.test(s) && !airports.lookup(s)) return s.toUpperCase();
  }
  return undefined;
}

/**
 * Places a pickup: its `lat`/`lon` when both parse; else the airport an airport pickup names by IATA code; else
 * its `city` (+ `state`, `country`) through the gazetteer. An airport pickup whose code the directory does not
 * know (and that has no coordinates) is UNKNOWN_AIRPORT; a pickup with nothing that places it is NOT_LOCATED.
 */
export function placePickup(pickup: TripLocation | undefined, deps: { airports: AirportDirectory; gazetteer: Gazetteer }): PickupPlacement {
  const location = pickup ?? {};
  const airport = airportOf(location, deps.airports);
  const ownCountry = ALPHA2.test((location.country ?? "").trim()) ? (location.country as string).trim().toUpperCase() : undefined;
  const lat = readCoordinate(location.lat, 90);
  const lon = readCoordinate(location.lon, 180);
  if (lat !== undefined && lon !== undefined) {
    const country = airport?.country ?? ownCountry ?? deps.gazetteer.countryAt(lat, lon);
    return { placed: true, position: { lat, lon }, by: "coordinates", ...(airport ? { airport } : {}), ...(country ? { country } : {}) };
  }
  if (airport) {
    const country = airport.country ?? ownCountry;
    return { placed: true, position: { lat: airport.lat, lon: airport.lon }, by: "airport", airport, ...(country ? { country } : {}) };
  }
  const unknown = unknownAirportCode(location, deps.airports);
  if (unknown)
    return { placed: false, reason: "UNKNOWN_AIRPORT", field: "locations.pickup", message: `names airport ${unknown}, which is not a known IATA code` };
  const city = (location.city ?? "").trim();
  if (city !== "") {
    const state = (location.state ?? "").trim();
    const country = (location.country ?? "").trim();
    const place = deps.gazetteer.city({ city, ...(state ? { state } : {}), ...(country ? { country } : {}) });
    if (place) return { placed: true, position: { lat: place.lat, lon: place.lon }, by: "city", country: place.country };
    return {
      placed: false,
      reason: "NOT_LOCATED",
      field: "locations.pickup",
      message: `cannot be placed: city ${JSON.stringify(city.slice(0, 100))} is ` +
        `unknown${state || country ? " in that state/country" : ", or ambiguous without state and country"}`,
    };
  }
  return {
    placed: false,
    reason: "NOT_LOCATED",
    field: "locations.pickup",
    message: "cannot be placed: send lat and lon, an airport's IATA code (locationType airport), or city with state and country",
  };
}

/**
 * The IANA time zone of the pickup's place, as its time is read: the airport's, the zone at its coordinates, or at
 * the city the gazetteer places it in; UTC when nothing places it.
 */
export function pickupPlaceZone(pickup: TripLocation | undefined, deps: { airports: AirportDirectory; gazetteer: Gazetteer; timeZones: TimeZones }): string {
  const placed = placePickup(pickup, deps);
  return pickupZone(pickup ?? {}, deps.airports, deps.timeZones, placed.placed ? placed.position : undefined);
}
