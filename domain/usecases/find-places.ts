import { ValidationError } from "../errors";
import { distanceKm } from "../trips/places";
import { placeLabel, type Gazetteer } from "../trips/pickup-place";
import type { Geocoder } from "../trips/ports";

/** What finding places reads: the gazetteer's cities and, when the service has one, the geocoder. */
export interface FindPlacesDeps {
  gazetteer: Gazetteer;
  geocoder?: Geocoder;
}

/** A place to choose a drop-off from (docs/places.md#drop-offs-and-stops). */
export interface FoundPlace {
  label: string;
  lat: number;
  lon: number;
  /** city: the gazetteer's town (its centre); address: the geocoder's answer. */
  by: "city" | "address";
  /** ISO 3166-1 alpha-2, when known. */
  country?: string;
}

export const MAX_FOUND_PLACES = 10;
/** A geocoder's place this close to the city found is the same place. */
const SAME_PLACE_KM = 0.1;

/**
 * Find places for a search text (docs/places.md#drop-offs-and-stops): the city the gazetteer finds for it
 * (`Boston`, `Boston, MA`, `München, DE`: the first part the city, then state and/or country), then the geocoder's
 * places for the whole text, at most `limit` in all. A text of fewer than 2 or more than 200 characters: 400 naming `q`.
 */
export async function findPlaces(deps: FindPlacesDeps, q: string, limit = 5): Promise<FoundPlace[]> {
  const text = q.trim().replace(/\s+/g, " ");
  if (text.length < 2 || text.length > 200)
    throw new ValidationError([{ field: "q", message: "must be 2 to 200 characters: a city or a place's address" }]);
  const wanted = Math.max(1, Math.min(MAX_FOUND_PLACES, Math.floor(limit)));
  const found: FoundPlace[] = [];
  const city = cityOf(deps.gazetteer, text);
  if (city) found.push(city);
  const near = (p: { lat: number; lon: number }) => found.some((f) => distanceKm(f, p) <= SAME_PLACE_KM);
  for (const place of deps.geocoder ? await deps.geocoder.search(text, wanted) : []) {
    if (found.length >= wanted) break;
    if (near(place)) continue;
    const { label, lat, lon, country } = place;
    found.push({ label, lat, lon, by: "address", ...(country ? { country } : {}) });
  }
  return found;
}

/** The gazetteer's city for `City`, `City, State`, `City, Country` or `City, State, Country`. */
function cityOf(gazetteer: Gazetteer, text: string): FoundPlace | undefined {
  const [city, second, third] = text.split(",").map((p) => p.trim());
  if (!city) return undefined;
  const asked = third
    ? [{ city, state: second, country: third }]
    : second
      ? [
          { city, state: second },
          { city, country: second },
        ]
      : [{ city }];
  for (const query of asked) {
    const place = gazetteer.city(query);
    if (place) return { label: placeLabel(place, city), lat: place.lat, lon: place.lon, by: "city", country: place.country };
  }
  return undefined;
}
