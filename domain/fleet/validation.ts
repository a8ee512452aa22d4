import type { FieldError } from "../errors";
import { fleetEntryFields, type FleetEntry } from "./entry";
import { fareCurrencyProblem, minorUnitProblem } from "../currency";
import { hiddenCharacterProblem, nameProblem } from "../shared/unicode-text";

/** A fleet entry as a client sends it (API field names); every value is checked, none is trusted. */
export interface FleetEntryInput {
  type?: unknown;
  name?: unknown;
  description?: unknown;
  imageUrl?: unknown;
  maxPassengers?: unknown;
  maxLuggage?: unknown;
  lat?: unknown;
  lon?: unknown;
  airports?: unknown;
  minimum_rate?: unknown;
  hourly_rate?: unknown;
  currency?: unknown;
  active?: unknown;
  externalId?: unknown;
}

/** The owner-independent part of a valid fleet entry, normalised. */
export type FleetEntryDraft = Omit<FleetEntry, "slug" | "netid" | "createdAt" | "updatedAt">;

export const FLEET_LIMITS = {
  name: 200,
  description: 2000,
  imageUrl: 2048,
  maxPassengers: 1000,
  maxLuggage: 1000,
  airports: 50,
  rate: 1_000_000,
  externalId: 100,
} as const;

const TYPE_CODE = /^[A-Z][A-Z0-9_]{0,31}$/;
const IATA = /^[A-Z]{3}$/;
const RATE_TEXT = /^\d+(?:\.\d{1,2})?$/;

export interface FleetValidationOptions {
  /** Whether an IATA code (upper-case, 3 letters) is in the airport directory. */
  isKnownAirport: (code: string) => boolean;
  /** Prefix of every reported field, e.g. "[12]." for row 12 of an import. */
  fieldPrefix?: string;
}

const isAbsent = (v: unknown) => v === undefined || v === null;

/**
 * Checks a fleet entry against every fleet-entry rule and reports all failing fields at once:
 * type an upper-case code, name 1–200 chars, description ≤ 2000, imageUrl http(s) or null,
 * maxPassengers 1–1000, maxLuggage 0–1000 or null, lat/lon both or neither and in range,
 * airports known IATA codes, rates numbers ≥ 0 with at most 2 decimals and at most the currency's minor unit's
 * (none in JPY), currency an active ISO 4217 code in capitals (default USD),
 * active boolean (default true), externalId 1–100 printable characters or null.
 */
export function validateFleetEntry(
  input: FleetEntryInput,
  options: FleetValidationOptions,
): { ok: true; value: FleetEntryDraft } | { ok: false; errors: FieldError[] } {
  const errors: FieldError[] = [];
  const prefix = options.fieldPrefix ?? "";
  const fail = (field: string, message: string) => errors.push({ field: prefix + field, message });

  if (input === null || typeof input !== "object" || Array.isArray(input)) {
    errors.push({ field: prefix.replace(/\.$/, "") || "body", message: "must be an object" });
    return { ok: false, errors };
  }

  let type = "";
  if (isAbsent(input.type) || input.type === "") fail("type", "is required");
  else if (typeof input.type !== "string") fail("type", "must be a string");
  else {
    type = input.type.trim().toUpperCase();
    if (!TYPE_CODE.test(type)) fail("type", "must be a vehicle code of letters, digits and _ (e.g. SEDAN, SUV, VAN_MINI), at most 32 characters");
  }

  let name = "";
  if (isAbsent(input.name)) fail("name", "is required");
  else if (typeof input.name !== "string") fail("name", "must be a string");
  else {
    name = input.name.trim();
    if (name.length === 0) fail("name", "is required");
    else if (name.length > FLEET_LIMITS.name) fail("name", `must be at most ${FLEET_LIMITS.name} characters`);
    // Other companies see the name (search, quotes, bookings): the rules of a company's name (issue 37 N12).
    else if (nameProblem(name)) fail("name", nameProblem(name)!);
  }

  let description = "";
  if (!isAbsent(input.description)) {
    if (typeof input.description !== "string") fail("description", "must be a string");
    else {
      description = input.description.trim();
      if (description.length > FLEET_LIMITS.description) fail("description", `must be at most ${FLEET_LIMITS.description} characters`);
      else if (hiddenCharacterProblem(description)) fail("description", hiddenCharacterProblem(description)!);
    }
  }

  let imageUrl: string | null = null;
  if (!isAbsent(input.imageUrl) && input.imageUrl !== "") {
    if (typeof input.imageUrl !== "string") fail("imageUrl", "must be a string or null");
    else if (input.imageUrl.length > FLEET_LIMITS.imageUrl) fail("imageUrl", `must be at most ${FLEET_LIMITS.imageUrl} characters`);
    else if (!isHttpUrl(input.imageUrl.trim())) fail("imageUrl", "must be an http or https URL");
    else imageUrl = input.imageUrl.trim();
  }

  const maxPassengers = wholeNumber(input.maxPassengers, 1, FLEET_LIMITS.maxPassengers);
  if (isAbsent(input.maxPassengers)) fail("maxPassengers", "is required");
  else if (maxPassengers === undefined) fail("maxPassengers", `must be a whole number from 1 to ${FLEET_LIMITS.maxPassengers}`);

  let maxLuggage: number | null = null;
  if (!isAbsent(input.maxLuggage)) {
    const n = wholeNumber(input.maxLuggage, 0, FLEET_LIMITS.maxLuggage);
    if (n === undefined) fail("maxLuggage", `must be a whole number from 0 to ${FLEET_LIMITS.maxLuggage}, or null when unknown`);
    else maxLuggage = n;
  }

  let lat: number | null = null;
  let lon: number | null = null;
  const hasLat = !isAbsent(input.lat);
  const hasLon = !isAbsent(input.lon);
  if (hasLat !== hasLon) fail(hasLat ? "lon" : "lat", "lat and lon must be sent together (or neither)");
  if (hasLat) {
    if (!isFiniteNumber(input.lat) || input.lat < -90 || input.lat > 90) fail("lat", "must be a number from -90 to 90");
    else lat = input.lat;
  }
  if (hasLon) {
    if (!isFiniteNumber(input.lon) || input.lon < -180 || input.lon > 180) fail("lon", "must be a number from -180 to 180");
    else lon = input.lon;
  }
  if (lat === null || lon === null) lat = lon = null;

  const airports: string[] = [];
  if (!isAbsent(input.airports)) {
    if (!Array.isArray(input.airports)) fail("airports", "must be an array of IATA codes");
    else if (input.airports.length > FLEET_LIMITS.airports) fail("airports", `must hold at most ${FLEET_LIMITS.airports} codes`);
    else {
      const unknown: string[] = [];
      input.airports.forEach((raw, i) => {
        const code = typeof raw === "string" ? raw.trim().toUpperCase() : "";
        if (!IATA.test(code)) fail(`airports[${i}]`, "must be a 3-letter IATA code");
        else if (!options.isKnownAirport(code)) unknown.push(code);
        else if (!airports.includes(code)) airports.push(code);
      });
      if (unknown.length > 0) fail("airports", `unknown IATA code${unknown.length > 1 ? "s" : ""}: ${unknown.slice(0, 10).join(", ")}`);
    }
  }

  const minimumRate = rate(input.minimum_rate, "minimum_rate", fail);
  const hourlyRate = rate(input.hourly_rate, "hourly_rate", fail);

  let currency = "USD";
  if (!isAbsent(input.currency) && input.currency !== "") {
    const c = typeof input.currency === "string" ? input.currency.trim() : input.currency;
    const problem = fareCurrencyProblem(c);
    if (problem) fail("currency", problem);
    else currency = c as string;
  }
  // A rate has at most its currency's minor unit's decimals: JPY 1.5 is no amount of yen (issue 37 N13).
  if (!fareCurrencyProblem(currency))
    for (const [field, value] of [["minimum_rate", minimumRate], ["hourly_rate", hourlyRate]] as const) {
      const problem = value === undefined ? undefined : minorUnitProblem(value.replace(/\.?0+$/, "").split(".")[1]?.length ?? 0, currency);
      if (problem) fail(field, problem);
    }

  let externalId: string | null = null;
  if (!isAbsent(input.externalId) && input.externalId !== "") {
    const id = typeof input.externalId === "string" ? input.externalId.trim() : undefined;
    if (id === undefined) fail("externalId", "must be a string or null");
    else if (id.length === 0 || id.length > FLEET_LIMITS.externalId || /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/.test(id))
      fail("externalId", `must be 1–${FLEET_LIMITS.externalId} printable characters`);
    else externalId = id;
  }

  let active = true;
  if (!isAbsent(input.active)) {
    if (typeof input.active !== "boolean") fail("active", "must be true or false");
    else active = input.active;
  }

  if (errors.length > 0) return { ok: false, errors };
  return {
    ok: true,
    value: {
      type,
      name,
      description,
      imageUrl,
      maxPassengers: maxPassengers!,
      maxLuggage,
      lat,
      lon,
      airports,
      minimumRate: minimumRate!,
      hourlyRate: hourlyRate!,
      currency,
      active,
      externalId,
    },
  };
}

/** A stored entry in the API's input shape, so a PATCH can be merged over it and validated as a whole. */
export function inputOf(entry: FleetEntryDraft): FleetEntryInput {
  return fleetEntryFields(entry);
}

/**
 * A rate sent as a JSON number, as a decimal string with two decimals ("125.50"). The number's own
 * shortest decimal form decides "at most 2 decimals", so no float arithmetic touches the amount.
 */
export function rateToDecimal(value: unknown): string | undefined {
  if (!isFiniteNumber(value) || value < 0 || value > FLEET_LIMITS.rate) return undefined;
  const text = String(value);
  if (!RATE_TEXT.test(text)) return undefined;
  const [whole, fraction = ""] = text.split(".");
  return `${whole}.${fraction.padEnd(2, "0")}`;
}

function rate(value: unknown, field: string, fail: (field: string, message: string) => void): string | undefined {
  if (isAbsent(value)) {
    fail(field, "is required");
    return undefined;
  }
  const decimal = rateToDecimal(value);
  if (decimal === undefined) fail(field, `must be a number from 0 to ${FLEET_LIMITS.rate} with at most 2 decimals`);
  return decimal;
}

function isFiniteNumber(v: unknown): v is number {
  return typeof v === "number" && Number.isFinite(v);
}

function wholeNumber(v: unknown, min: number, max: number): number | undefined {
  return isFiniteNumber(v) && Number.isInteger(v) && v >= min && v <= max ? v : undefined;
}

function isHttpUrl(text: string): boolean {
  if (!/^https?:\/\//i.test(text)) return false;
  try {
    const url = new URL(text);
    return (url.protocol === "http:" || url.protocol === "https:") && url.hostname.length > 0;
  } catch {
    return false;
  }
}
