import type { Airport, AirportDirectory } from "../airports";
import type { TripLocation } from "./booking";
import { airportOf, pickupZone, readCoordinate, type Position, type TimeZones } from "./places";

/** A place a gazetteer knows: its position and country (ISO 3166-1 alpha-2). */
export interface GazetteerPlace {
  lat: number;
  lon: number;
  country: string;
  /** The place's own name (`New York City` for "New York"), and its first-level division's code when known. */
  name?: string;
  state?: string;
  /** Other places the name matches of a similar size (docs/places.md: the answer names the one chosen). */
  alsoMatches?: Array<{ name: string; state?: string; country: string }>;
}

/** How a chosen place is written in a warning: `Springfield, MO, US`. */
export function placeLabel(place: { name?: string; state?: string; country: string }, fallback = ""): string {
  return [place.name ?? fallback, place.state, place.country].filter((part) => part !== undefined && part !== "").join(", ");
}

/** The PICKUP_CITY_AMBIGUOUS message: the one chosen, the others of similar size, and how to choose. */
export function ambiguousCityMessage(asked: string, place: GazetteerPlace): string {
  const others = (place.alsoMatches ?? []).slice(0, 3).map((o) => placeLabel(o));
  return `City ${JSON.stringify(asked.slice(0, 100))} matches several places of similar size; chose ${placeLabel(place, asked)} ` +
    `(the most populous)${others.length > 0 ? `; also ${others.join("; ")}` : ""}. Send state and country to choose another`;
}

/** Towns and cities of the world, offline; the adapter reads a maintained data package. */
export interface Gazetteer {
  /**
   * The place `city` names as a person means it (case- and accent-insensitive, native and alternate names),
   * narrowed by `state` (code or name) and `country` (alpha-2 or name) when given: the most populous match, with
   * the others of a similar size in `alsoMatches`; undefined when it knows none.
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
  /** Placed by city: the place chosen (its name, division and the others of similar size the city matched). */
  city?: GazetteerPlace & { asked: string };
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

/** The 3-letter code an airport location gives (address or landmark) that the directory does not know, if any. */
export function unknownAirportCode(location: TripLocation, airports: AirportDirectory): string | undefined {
  if ((location.locationType ?? "").trim().toLowerCase() !== "airport") return undefined;
  for (const text of [location.address, location.landmark]) {
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
    if (place) return { placed: true, position: { lat: place.lat, lon: place.lon }, by: "city", country: place.country, city: { ...place, asked: city } };
    return {
      placed: false,
      reason: "NOT_LOCATED",
      field: "locations.pickup",
      message: `cannot be placed: city ${JSON.stringify(city.slice(0, 100))} is ` +
        `unknown${state || country ? " in that state/country" : ""}`,
    };
  }
  return {
    placed: false,
    reason: "NOT_LOCATED",
    field: "locations.pickup",
    message: "cannot be placed: send lat and lon, an airport's IATA code (locationType airport), or city with state and country",
  };
}

/** PICKUP_CITY_AMBIGUOUS when the pickup was placed by a city name that matches other places of a similar size. */
export function pickupCityWarnings(placed: PickupPlacement): Array<{ code: "PICKUP_CITY_AMBIGUOUS"; field: string; message: string; city: string }> {
  if (!placed.placed || !placed.city || (placed.city.alsoMatches ?? []).length === 0) return [];
  const chosen = placed.city;
  const message = ambiguousCityMessage(chosen.asked, chosen);
  return [{ code: "PICKUP_CITY_AMBIGUOUS", field: "locations.pickup.city", message, city: placeLabel(chosen, chosen.asked) }];
}

/**
 * The IANA time zone of the pickup's place, as its time is read: the airport's, the zone at its coordinates, or at
 * the city the gazetteer places it in; UTC when nothing places it.
 */
export function pickupPlaceZone(pickup: TripLocation | undefined, deps: { airports: AirportDirectory; gazetteer: Gazetteer; timeZones: TimeZones }): string {
  const placed = placePickup(pickup, deps);
  return pickupZone(pickup ?? {}, deps.airports, deps.timeZones, placed.placed ? placed.position : undefined);
}
