import type { AirportDirectory } from "../airports";
import type { TripLocation, TripLocations } from "./booking";
import type { Gazetteer, PlacedBy } from "./pickup-place";
import { airportOf, readCoordinate } from "./places";

/** Where one place of a trip is on the map, and how the exchange knows it. */
export interface PlaceView {
  lat: number;
  lon: number;
  /** coordinates (its own lat/lon), airport (the airport it names), city (the gazetteer's town). */
  by: PlacedBy;
  /** The airport the place names, when it names one the directory knows. */
  airport?: { iata: string; name: string };
}

/** Each place of a trip as the map draws it: null where nothing places it. */
export interface TripPlaces {
  pickup: PlaceView | null;
  stops: Array<PlaceView | null>;
  dropOff: PlaceView | null;
}

/**
 * One place: its lat/lon when both parse; else the airport an airport location names; else its city through the
 * gazetteer (only then: a read never asks the gazetteer where a position is).
 */
function placeOf(location: TripLocation | undefined, deps: { airports: AirportDirectory; gazetteer: Gazetteer }): PlaceView | null {
  if (!location) return null;
  const airport = airportOf(location, deps.airports);
  const named = airport ? { airport: { iata: airport.iata, name: airport.name } } : {};
  const lat = readCoordinate(location.lat, 90);
  const lon = readCoordinate(location.lon, 180);
  if (lat !== undefined && lon !== undefined) return { lat, lon, by: "coordinates", ...named };
  if (airport) return { lat: airport.lat, lon: airport.lon, by: "airport", ...named };
  const city = (location.city ?? "").trim();
  if (city === "") return null;
  const state = (location.state ?? "").trim();
  const country = (location.country ?? "").trim();
  const place = deps.gazetteer.city({ city, ...(state ? { state } : {}), ...(country ? { country } : {}) });
  return place ? { lat: place.lat, lon: place.lon, by: "city" } : null;
}

/**
 * The trip's pickup, stops and drop-off placed the way a pickup is (its lat/lon, else the airport an airport
 * location names, else its city): an airport pickup sent without coordinates is drawn at its airport.
 */
export function tripPlaces(locations: TripLocations | undefined, deps: { airports: AirportDirectory; gazetteer: Gazetteer }): TripPlaces {
  return {
    pickup: placeOf(locations?.pickup, deps),
    stops: (locations?.stops ?? []).slice(0, 100).map((s) => placeOf(s, deps)),
    dropOff: placeOf(locations?.dropOff, deps),
  };
}
