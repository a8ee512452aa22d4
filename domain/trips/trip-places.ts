import type { AirportDirectory } from "../airports";
import type { TripLocation, TripLocations } from "./booking";
import { placePickup, type Gazetteer, type PlacedBy } from "./pickup-place";

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

function placeOf(location: TripLocation | undefined, deps: { airports: AirportDirectory; gazetteer: Gazetteer }): PlaceView | null {
  if (!location) return null;
  const placed = placePickup(location, deps);
  if (!placed.placed) return null;
  return { lat: placed.position.lat, lon: placed.position.lon, by: placed.by, ...(placed.airport ? { airport: { iata: placed.airport.iata, name: placed.airport.name } } : {}) };
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
