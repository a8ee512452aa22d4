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
  /**
   * By city: the town's own name and its first-level division's code, as a drop-off's `city` and `state` name it
   * (sent without lat/lon, the quote places it at the same centre and warns DROPOFF_APPROXIMATE).
   */
  city?: string;
  state?: string;
}

export const MAX_FOUND_PLACES = 10;
/** A geocoder's place this close to the city found is the same place. */
const SAME_PLACE_KM = 0.1;

/**
 * Find places for a search text (docs/places.md#drop-offs-and-stops): the geocoder's places for it, when the service
 * has one, best first; then the city the text names, at its centre (approximate) — the first comma-separated part
 * the gazetteer knows as a city, with the parts after it as state and/or country (`Boston`, `Boston, MA`,
 * `200 Park Ave, New York, US`) — at most `limit` in all. A text of fewer than 2 or more than 200 characters: 400
 * naming `q`.
 */
export async function findPlaces(deps: FindPlacesDeps, q: string, limit = 5): Promise<FoundPlace[]> {
  const text = q.trim().replace(/\s+/g, " ");
  if (text.length < 2 || text.length > 200)
    throw new ValidationError([{ field: "q", message: "must be 2 to 200 characters: a city or a place's address" }]);
  const wanted = Math.max(1, Math.min(MAX_FOUND_PLACES, Math.floor(limit)));
  const found: FoundPlace[] = [];
  for (const { label, lat, lon, country } of deps.geocoder ? await deps.geocoder.search(text, wanted) : [])
    found.push({ label, lat, lon, by: "address", ...(country ? { country } : {}) });
  const city = cityIn(deps.gazetteer, text);
  if (city && !found.some((f) => distanceKm(f, city) <= SAME_PLACE_KM)) found.push(city);
  return found.slice(0, wanted);
}

/** The city a text names: its first comma-separated part the gazetteer knows, read with the next parts as state/country. */
function cityIn(gazetteer: Gazetteer, text: string): FoundPlace | undefined {
  const parts = text.split(",").map((p) => p.trim()).filter((p) => p !== "").slice(0, 6);
  for (let i = 0; i < parts.length; i++) {
    const [city, second, third] = parts.slice(i);
    const asked = third
      ? [{ city, state: second, country: third }, { city, state: second }, { city, country: second }]
      : second
        ? [{ city, state: second }, { city, country: second }, { city }]
        : [{ city }];
    for (const query of asked) {
      const place = gazetteer.city(query);
      if (!place) continue;
      const named = { city: place.name ?? city, ...(place.state ? { state: place.state } : {}) };
      return { label: placeLabel(place, city), lat: place.lat, lon: place.lon, by: "city", country: place.country, ...named };
    }
  }
  return undefined;
}
