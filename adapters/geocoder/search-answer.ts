import type { GeocodedPlace } from "../../domain/trips/ports";

/**
 * The answer of a `/search` endpoint as places, whichever of the two common shapes it has: Photon's (and
 * Nominatim's `format=geojson`/`geocodejson`) GeoJSON FeatureCollection of Points, `[lon, lat]`; or Nominatim's
 * `json`/`jsonv2` array of places whose `lat` and `lon` are decimal strings. Undefined when the answer is neither
 * (an error object, HTML): the geocoder did not answer a search.
 */
export function placesOfAnswer(answer: unknown): GeocodedPlace[] | undefined {
  if (Array.isArray(answer)) return answer.flatMap((item) => nominatimPlace(item) ?? []);
  if (isObject(answer) && answer.type === "FeatureCollection" && Array.isArray(answer.features))
    return answer.features.flatMap((feature) => featurePlace(feature) ?? []);
  return undefined;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const text = (v: unknown): string => (typeof v === "string" ? v.trim() : typeof v === "number" ? String(v) : "");

/** A coordinate as a number within ±limit (a string or a number), else undefined. */
function coordinate(v: unknown, limit: number): number | undefined {
  const n = typeof v === "number" ? v : typeof v === "string" && v.trim() !== "" ? Number(v) : NaN;
  return Number.isFinite(n) && Math.abs(n) <= limit ? n : undefined;
}

/** ISO 3166-1 alpha-2 upper-cased, else undefined. */
function alpha2(v: unknown): string | undefined {
  const s = text(v);
  return /^[A-Za-z]{2}$/.test(s) ? s.toUpperCase() : undefined;
}

function place(lat: number | undefined, lon: number | undefined, label: string, country: string | undefined): GeocodedPlace | undefined {
  if (lat === undefined || lon === undefined) return undefined;
  return { lat, lon, label: label.slice(0, 300), ...(country ? { country } : {}) };
}

/** Nominatim: `{lat: "40.75", lon: "-73.97", display_name, address?: {country_code}}`. */
function nominatimPlace(item: unknown): GeocodedPlace | undefined {
  if (!isObject(item)) return undefined;
  const address = isObject(item.address) ? item.address : {};
  return place(coordinate(item.lat, 90), coordinate(item.lon, 180), text(item.display_name), alpha2(address.country_code));
}

/** A GeoJSON Point feature: Photon's properties (name, street, city, countrycode…), or Nominatim's GeoJSON ones. */
function featurePlace(feature: unknown): GeocodedPlace | undefined {
  if (!isObject(feature) || !isObject(feature.geometry) || feature.geometry.type !== "Point") return undefined;
  const coordinates = feature.geometry.coordinates;
  if (!Array.isArray(coordinates)) return undefined;
  const p = isObject(feature.properties) ? feature.properties : {};
  const geocoding = isObject(p.geocoding) ? p.geocoding : {};
  const street = [text(p.housenumber), text(p.street)].filter(Boolean).join(" ");
  const composed = [text(p.name), street, text(p.city), text(p.state), text(p.country)]
    .filter((part, i, all) => part !== "" && all.indexOf(part) === i)
    .join(", ");
  const label = text(geocoding.label) || text(p.display_name) || composed;
  const country = alpha2(p.countrycode) ?? alpha2(p.country_code) ?? alpha2(geocoding.country_code);
  return place(coordinate(coordinates[1], 90), coordinate(coordinates[0], 180), label, country);
}
