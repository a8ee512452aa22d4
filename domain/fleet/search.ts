import { ValidationError, type FieldError } from "../errors";
import { planAtLeast, type Plan } from "../company/plan";
import { queryWords } from "./text";

/** Bounds of the fleet search parameters (the service's published limits). */
export const SEARCH_LIMITS = {
  airports: 25,
  radiusKmDefault: 50,
  radiusKmMax: 1000,
  limitDefault: 20,
  limitMax: 100,
  /** A sanity bound, far above any real fleet; deeper pages are 400. */
  offsetMax: 10_000_000,
  types: 50,
  qLength: 200,
  qWords: 20,
  /** docs/places.md: a city (+ state, country) as a centre. */
  cityLength: 200,
  stateLength: 100,
} as const;

/** The query parameters as they arrive: optional strings. */
export interface RawFleetSearchQuery {
  airports?: string;
  lat?: string;
  lon?: string;
  types?: string;
  q?: string;
  radius_km?: string;
  limit?: string;
  offset?: string;
  city?: string;
  state?: string;
  country?: string;
}

/** A fleet search that passed every rule, normalised. */
export interface FleetSearchQuery {
  /** Trimmed, upper-cased, de-duplicated codes in the order sent. */
  airports: string[];
  /** The explicit centre, when both lat and lon were sent. */
  position: { lat: number; lon: number } | undefined;
  /** The city centre asked for (trimmed), placed by the gazetteer as a pickup's city is. */
  city?: { city: string; state?: string; country?: string };
  /** Upper-cased types; undefined means every type. */
  types: string[] | undefined;
  /** Normalised words of q; empty matches everything. */
  words: string[];
  radiusKm: number;
  /** The limit asked for (before the plan rule). */
  limit: number;
  offset: number;
}

const NUMBER = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/;
const INTEGER = /^\+?\d{1,12}$/;

/**
 * Checks the query parameters of fleet search and reports every failing one at once (400 naming it):
 * a location (airports, city, or lat and lon together), lat −90..90, lon −180..180, radius_km in (0, 1000],
 * limit a whole number 1–100, offset a whole number ≥ 0, at most 25 airports.
 */
export function parseFleetSearchQuery(raw: RawFleetSearchQuery): FleetSearchQuery {
  const errors: FieldError[] = [];
  const fail = (field: string, message: string) => errors.push({ field, message });

  const airports: string[] = [];
  for (const part of (raw.airports ?? "").split(",")) {
    const code = part.trim().toUpperCase();
    if (code && !airports.includes(code)) airports.push(code);
  }
  if (airports.length > SEARCH_LIMITS.airports) fail("airports", `must hold at most ${SEARCH_LIMITS.airports} codes`);

  const latSent = isSent(raw.lat);
  const lonSent = isSent(raw.lon);
  const lat = latSent ? number(raw.lat!) : undefined;
  const lon = lonSent ? number(raw.lon!) : undefined;
  if (latSent && (lat === undefined || lat < -90 || lat > 90)) fail("lat", "must be a number from -90 to 90");
  if (lonSent && (lon === undefined || lon < -180 || lon > 180)) fail("lon", "must be a number from -180 to 180");
  if (latSent !== lonSent) fail(latSent ? "lon" : "lat", "lat and lon must be sent together");
  const city = (raw.city ?? "").trim();
  const state = (raw.state ?? "").trim();
  const country = (raw.country ?? "").trim();
  if (city.length > SEARCH_LIMITS.cityLength) fail("city", `must be at most ${SEARCH_LIMITS.cityLength} characters`);
  if (state.length > SEARCH_LIMITS.stateLength) fail("state", `must be at most ${SEARCH_LIMITS.stateLength} characters`);
  if (country.length > SEARCH_LIMITS.stateLength) fail("country", `must be at most ${SEARCH_LIMITS.stateLength} characters`);
  if (city === "" && (state !== "" || country !== "")) fail("city", "state and country narrow a city: send city too");
  if (airports.length === 0 && !latSent && !lonSent && city === "" && state === "" && country === "")
    fail("airports", "send airports, city, or both lat and lon");

  let radiusKm: number = SEARCH_LIMITS.radiusKmDefault;
  if (isSent(raw.radius_km)) {
    const r = number(raw.radius_km!);
    if (r === undefined || r <= 0 || r > SEARCH_LIMITS.radiusKmMax)
      fail("radius_km", `must be a number greater than 0 and at most ${SEARCH_LIMITS.radiusKmMax}`);
    else radiusKm = r;
  }

  let limit: number = SEARCH_LIMITS.limitDefault;
  if (isSent(raw.limit)) {
    const n = integer(raw.limit!);
    if (n === undefined || n < 1 || n > SEARCH_LIMITS.limitMax) fail("limit", `must be a whole number from 1 to ${SEARCH_LIMITS.limitMax}`);
    else limit = n;
  }

  let offset = 0;
  if (isSent(raw.offset)) {
    const n = integer(raw.offset!);
    if (n === undefined || n > SEARCH_LIMITS.offsetMax) fail("offset", `must be a whole number from 0 to ${SEARCH_LIMITS.offsetMax}`);
    else offset = n;
  }

  let types: string[] | undefined;
  const typeList = (raw.types ?? "")
    .split(",")
    .map((s) => s.trim().toUpperCase())
    .filter((s) => s.length > 0);
  if (typeList.length > SEARCH_LIMITS.types) fail("types", `must hold at most ${SEARCH_LIMITS.types} types`);
  else if (typeList.length > 0) types = [...new Set(typeList)];

  let words: string[] = [];
  if ((raw.q ?? "").length > SEARCH_LIMITS.qLength) fail("q", `must be at most ${SEARCH_LIMITS.qLength} characters`);
  else {
    words = [...new Set(queryWords(raw.q))];
    if (words.length > SEARCH_LIMITS.qWords) fail("q", `must hold at most ${SEARCH_LIMITS.qWords} words`);
  }

  if (errors.length > 0) throw new ValidationError(errors);
  return {
    airports,
    position: lat !== undefined && lon !== undefined ? { lat, lon } : undefined,
    ...(city !== "" ? { city: { city, ...(state ? { state } : {}), ...(country ? { country } : {}) } } : {}),
    types,
    words,
    radiusKm,
    limit,
    offset,
  };
}

/** Spec rule 2: the limit asked for is honoured on PROFESSIONAL and above; other plans always get 20. */
export function appliedLimit(plan: Plan, asked: number): number {
  return planAtLeast(plan, "PROFESSIONAL") ? asked : SEARCH_LIMITS.limitDefault;
}

/** `score` = 1 − distance / radius (unrounded distance), rounded to 4 decimals. */
export function scoreOf(distanceKm: number, radiusKm: number): number {
  return round(1 - distanceKm / radiusKm, 4);
}

/** Rounds half away from zero to `decimals` places (for display values only, never money). */
export function round(value: number, decimals: number): number {
  const f = 10 ** decimals;
  const r = Math.round(Math.abs(value) * f) / f;
  return value < 0 ? -r : r;
}

function isSent(v: string | undefined): boolean {
  return v !== undefined && v.trim() !== "";
}

function number(text: string): number | undefined {
  const t = text.trim();
  if (!NUMBER.test(t)) return undefined;
  const n = Number(t);
  return Number.isFinite(n) ? n : undefined;
}

function integer(text: string): number | undefined {
  const t = text.trim();
  return INTEGER.test(t) ? Number(t) : undefined;
}
