import type { FieldError } from "../errors";
import { ValidationError } from "../errors";
import { fareCurrencyProblem, minorUnitProblem } from "../currency";
import { nameProblem } from "../shared/unicode-text";
import { checkAmountCaps, checkDistanceBands, checkShadowedRules, checkUnknownMembers } from "./card-checks";

/** Where a zone is: an airport (its position, 5 km), a circle, or a polygon ring of [lon, lat] points. */
export type ZoneInput = { airport: string } | { lat: number; lon: number; radiusKm: number } | { polygon: Array<[number, number]> };

export interface RateRoute {
  id: string;
  from: ZoneInput;
  to: ZoneInput;
  vehTypes?: string[];
  price: string;
  bothWays: boolean;
}
export interface DistanceRate {
  id: string;
  vehTypes?: string[];
  base: string;
  includedKm: number;
  perKm: string;
  /** Its band: trips of at most this many road km (docs/rates.md#distance-bands); absent: any length. */
  upToKm?: number;
}
export interface HourlyRate {
  id: string;
  vehTypes?: string[];
  perHour: string;
  minimumHours: number;
}
export type SurchargeKind = "airportPickup" | "night" | "date";
export interface Surcharge {
  id: string;
  kind: SurchargeKind;
  name?: string;
  airports?: string[];
  from?: string;
  to?: string;
  dates?: string[];
  amount?: string;
  percent?: number;
}
export interface RateExtra {
  code: string;
  name: string;
  price: string;
  max?: number;
}

/** A provider's rate card as stored and shown: every amount a decimal string with the currency's digits. */
export interface RateCard {
  currency: string;
  minimumFare?: string;
  routes: RateRoute[];
  distance: DistanceRate[];
  hourly: HourlyRate[];
  surcharges: Surcharge[];
  extras: RateExtra[];
}

export const RATE_CARD_LIMITS = { routes: 2000, other: 200, polygonPoints: 500, radiusKm: 500, percent: 1000, hours: 24 * 30, name: 200 } as const;

/** What validating a card needs to know: minor units, the default currency, and the airports it may name. */
export interface RateCardContext {
  minorUnit(code: string): number | undefined;
  defaultCurrency: string | undefined;
  airportKnown(iata: string): boolean;
}

const ID = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,63}$/;
const CODE = /^[A-Z][A-Z0-9_]{0,31}$/;
const IATA = /^[A-Za-z]{3}$/;
const HHMM = /^([01]\d|2[0-3]):[0-5]\d$/;
const MONTH_DAY = /^(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])$/;
const DECIMAL = /^\d{1,12}(?:\.(\d{1,4}))?$/;
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** Reads a card sent by a client: the normalised card, or a ValidationError naming every failing field. */
export function validateRateCard(input: unknown, ctx: RateCardContext): RateCard {
  if (!isObject(input)) throw new ValidationError([{ field: "body", message: "must be a rate card object" }]);
  const v = readCurrency(input, ctx);
  const minimumFare = amount(v, input.minimumFare, "minimumFare", false);
  const routes = readRoutes(v);
  const distance = readDistanceRates(v);
  const hourly = readHourlyRates(v);
  const surcharges = readSurcharges(v);
  const extras = readExtras(v);
  for (const key of Object.keys(input))
    if (!["currency", "minimumFare", "routes", "distance", "hourly", "surcharges", "extras"].includes(key)) fail(v, key, "is not a rate card field");
  const failed = (field: string, message: string) => fail(v, field, message);
  checkUnknownMembers(input, RATE_CARD_LIMITS, failed);
  checkDistanceBands(input.distance, distance, failed);
  checkShadowedRules("hourly", hourly, failed);
  checkAmountCaps({ minimumFare, routes, distance, hourly, surcharges, extras }, failed);
  if (v.errors.length > 0) throw new ValidationError(v.errors);
  return { currency: v.currency!, ...(minimumFare !== undefined ? { minimumFare } : {}), routes, distance, hourly, surcharges, extras };
}

/** A card being read: its fields, every failure so far (in order), its currency and the ids it has used. */
interface CardReading {
  input: Record<string, unknown>;
  ctx: RateCardContext;
  errors: FieldError[];
  currency: string | undefined;
  /** The currency's decimals (2 without a known currency). */
  digits: number;
  ids: Set<string>;
}

const fail = (v: CardReading, field: string, message: string) => void v.errors.push({ field, message });

/** The card's currency: its own, else the provider's default (its vehicles'), else a failure. */
function readCurrency(input: Record<string, unknown>, ctx: RateCardContext): CardReading {
  const v: CardReading = { input, ctx, errors: [], currency: ctx.defaultCurrency, digits: 2, ids: new Set<string>() };
  if (input.currency !== undefined) {
    const problem = fareCurrencyProblem(input.currency) ?? (ctx.minorUnit(input.currency as string) === undefined ? "is not a known currency" : undefined);
    if (problem) {
      fail(v, "currency", problem);
      v.currency = undefined;
    } else v.currency = input.currency as string;
  } else if (v.currency === undefined) fail(v, "currency", "is required (the provider has no vehicles to take a currency from)");
  v.digits = v.currency ? (ctx.minorUnit(v.currency) ?? 2) : 2;
  return v;
}

function readRoutes(v: CardReading): RateRoute[] {
  return (list(v, "routes", RATE_CARD_LIMITS.routes) as Record<string, unknown>[]).map((r, i): RateRoute => {
    const f = `routes[${i}]`;
    if (r.bothWays !== undefined && typeof r.bothWays !== "boolean") fail(v, `${f}.bothWays`, "must be true or false");
    const types = vehTypes(v, r.vehTypes, `${f}.vehTypes`);
    return {
      id: id(v, r.id, `${f}.id`),
      from: zone(v, r.from, `${f}.from`),
      to: zone(v, r.to, `${f}.to`),
      ...(types ? { vehTypes: types } : {}),
      price: amount(v, r.price, `${f}.price`) ?? "0",
      bothWays: r.bothWays === true,
    };
  });
}

function readDistanceRates(v: CardReading): DistanceRate[] {
  return (list(v, "distance", RATE_CARD_LIMITS.other) as Record<string, unknown>[]).map((r, i): DistanceRate => {
    const f = `distance[${i}]`;
    const types = vehTypes(v, r.vehTypes, `${f}.vehTypes`);
    return {
      id: id(v, r.id, `${f}.id`),
      ...(types ? { vehTypes: types } : {}),
      base: amount(v, r.base, `${f}.base`) ?? "0",
      includedKm: number(v, r.includedKm, `${f}.includedKm`, 0, 5000, 0) ?? 0,
      perKm: amount(v, r.perKm, `${f}.perKm`) ?? "0",
    };
  });
}

function readHourlyRates(v: CardReading): HourlyRate[] {
  return (list(v, "hourly", RATE_CARD_LIMITS.other) as Record<string, unknown>[]).map((r, i): HourlyRate => {
    const f = `hourly[${i}]`;
    const types = vehTypes(v, r.vehTypes, `${f}.vehTypes`);
    return {
      id: id(v, r.id, `${f}.id`),
      ...(types ? { vehTypes: types } : {}),
      perHour: amount(v, r.perHour, `${f}.perHour`) ?? "0",
      minimumHours: number(v, r.minimumHours, `${f}.minimumHours`, 0, RATE_CARD_LIMITS.hours, 0) ?? 0,
    };
  });
}

function readSurcharges(v: CardReading): Surcharge[] {
  return (list(v, "surcharges", RATE_CARD_LIMITS.other) as Record<string, unknown>[]).map((r, i): Surcharge => {
    const f = `surcharges[${i}]`;
    const s: Surcharge = { id: id(v, r.id, `${f}.id`), kind: r.kind as SurchargeKind };
    const name = r.name === undefined ? undefined : lineName(v, r.name, `${f}.name`);
    if (name !== undefined) s.name = name;
    if (r.kind === "airportPickup") {
      if (!Array.isArray(r.airports) || r.airports.length === 0 || r.airports.length > 50) fail(v, `${f}.airports`, "must list 1–50 IATA airport codes");
      else s.airports = r.airports.map((a, k) => airport(v, a, `${f}.airports[${k}]`));
    } else if (r.kind === "night") {
      for (const k of ["from", "to"] as const)
        if (typeof r[k] !== "string" || !HHMM.test(r[k] as string)) fail(v, `${f}.${k}`, "must be a local time HH:MM");
        else s[k] = r[k] as string;
    } else if (r.kind === "date") {
      if (!Array.isArray(r.dates) || r.dates.length === 0 || r.dates.length > 366) fail(v, `${f}.dates`, "must list 1–366 month-days MM-DD");
      else {
        r.dates.forEach((d, k) => (typeof d !== "string" || !MONTH_DAY.test(d)) && fail(v, `${f}.dates[${k}]`, "must be a month-day MM-DD"));
        s.dates = r.dates.map(String);
      }
    } else fail(v, `${f}.kind`, "must be airportPickup, night or date");
    if ((r.amount === undefined) === (r.percent === undefined)) fail(v, `${f}.amount`, "give exactly one of amount or percent");
    else if (r.amount !== undefined) s.amount = amount(v, r.amount, `${f}.amount`);
    else s.percent = number(v, r.percent, `${f}.percent`, 0, RATE_CARD_LIMITS.percent);
    return s;
  });
}

function readExtras(v: CardReading): RateExtra[] {
  const codes = new Set<string>();
  return (list(v, "extras", RATE_CARD_LIMITS.other) as Record<string, unknown>[]).map((r, i): RateExtra => {
    const f = `extras[${i}]`;
    const code = typeof r.code === "string" ? r.code.trim().toUpperCase() : "";
    if (!CODE.test(code)) fail(v, `${f}.code`, "must be an extra code (CHILD_SEAT, MEET_AND_GREET…)");
    else if (codes.has(code)) fail(v, `${f}.code`, `duplicates the extra ${code}`);
    codes.add(code);
    const name = (r.name === undefined ? undefined : lineName(v, r.name, `${f}.name`)) ?? code;
    const max = r.max === undefined ? undefined : number(v, r.max, `${f}.max`, 1, 100);
    if (max !== undefined && !Number.isInteger(max)) fail(v, `${f}.max`, "must be a whole number from 1 to 100");
    return { code, name, price: amount(v, r.price, `${f}.price`) ?? "0", ...(max !== undefined ? { max } : {}) };
  });
}

/**
 * A surcharge's or extra's name, trimmed: every company quoted sees it on its breakdown lines, so it follows the rules
 * of a company's and a vehicle's name (docs/rates.md#setting-the-card): 1–200 characters, no line break or control
 * character (U+2028, BEL, ESC…), nothing that looks blank, no hidden or text-direction character (U+202E).
 */
function lineName(v: CardReading, value: unknown, field: string): string | undefined {
  const name = typeof value === "string" ? value.trim() : "";
  const problem = name === "" || name.length > RATE_CARD_LIMITS.name ? `must be a name of 1–${RATE_CARD_LIMITS.name} characters` : nameProblem(name);
  if (problem) fail(v, field, problem);
  return problem ? undefined : name;
}

/** The card's list `key` (at most `max` items), each item an object ({} standing in for one that is not). */
function list(v: CardReading, key: string, max: number): unknown[] {
  const items = v.input[key];
  if (items === undefined) return [];
  if (!Array.isArray(items)) {
    fail(v, key, "must be a list");
    return [];
  }
  if (items.length > max) {
    fail(v, key, `must have at most ${max} items`);
    return [];
  }
  return items.map((item, i) => {
    if (!isObject(item)) fail(v, `${key}[${i}]`, "must be an object");
    return isObject(item) ? item : {};
  });
}

/** An amount in the card's currency, normalised to its decimals (undefined: absent when not required, or failed). */
function amount(v: CardReading, value: unknown, field: string, required = true): string | undefined {
  const { currency, digits } = v;
  if (value === undefined && !required) return undefined;
  let text: string | undefined;
  if (typeof value === "number" && Number.isFinite(value) && value >= 0) text = String(value);
  else if (typeof value === "string") text = value.trim();
  const m = text === undefined ? null : DECIMAL.exec(text);
  if (!m || (m[1] ?? "").length > digits) {
    const minor = m && currency ? minorUnitProblem((m[1] ?? "").length, currency) : undefined;
    fail(v, field, minor ? `${minor} (an amount in the card's currency's minor unit)`
      : `must be an amount ≥ 0 as a decimal string or number with at most ${digits} decimals (${currency ?? "currency"})`);
    return undefined;
  }
  const [whole, frac = ""] = text!.split(".");
  return digits === 0 ? String(Number(whole)) : `${Number(whole)}.${frac.padEnd(digits, "0")}`;
}

function number(v: CardReading, value: unknown, field: string, min: number, max: number, fallback?: number): number | undefined {
  if (value === undefined && fallback !== undefined) return fallback;
  if (typeof value !== "number" || !Number.isFinite(value) || value < min || value > max) {
    fail(v, field, `must be a number from ${min} to ${max}`);
    return undefined;
  }
  return value;
}

/** An id, unique across the card's routes, distance and hourly rates and surcharges. */
function id(v: CardReading, value: unknown, field: string): string {
  if (typeof value !== "string" || !ID.test(value)) fail(v, field, "must be an id of letters, digits, '.', '_', ':' or '-' (1–64 characters)");
  else if (v.ids.has(value)) fail(v, field, `duplicates the id ${value}`);
  else v.ids.add(value);
  return String(value);
}

function airport(v: CardReading, value: unknown, field: string): string {
  if (typeof value !== "string" || !IATA.test(value) || !v.ctx.airportKnown(value.toUpperCase())) fail(v, field, "must be a known 3-letter IATA airport code");
  return String(value).toUpperCase();
}

function vehTypes(v: CardReading, value: unknown, field: string): string[] | undefined {
  if (value === undefined) return undefined;
  if (!Array.isArray(value) || value.length === 0 || value.length > 50) {
    fail(v, field, "must be a list of 1–50 vehicle type codes");
    return undefined;
  }
  value.forEach((t, i) => (typeof t !== "string" || !CODE.test(t.toUpperCase())) && fail(v, `${field}[${i}]`, "must be a vehicle type code (SEDAN, SUV…)"));
  return value.map((t) => String(t).toUpperCase());
}

function zone(v: CardReading, value: unknown, field: string): ZoneInput {
  if (!isObject(value)) {
    fail(v, field, "must be a zone: {airport}, {lat, lon, radiusKm} or {polygon}");
    return { airport: "" };
  }
  if (value.airport !== undefined) return { airport: airport(v, value.airport, `${field}.airport`) };
  if (value.polygon !== undefined) {
    const ring = value.polygon;
    if (!Array.isArray(ring) || ring.length < 4 || ring.length > RATE_CARD_LIMITS.polygonPoints) {
      fail(v, `${field}.polygon`, `must be a closed ring of 4–${RATE_CARD_LIMITS.polygonPoints} [lon, lat] points`);
      return { polygon: [] };
    }
    let bad = false;
    ring.forEach((p, i) => {
      if (!Array.isArray(p) || p.length !== 2 || !isLon(p[0]) || !isLat(p[1])) {
        fail(v, `${field}.polygon[${i}]`, "must be a [lon, lat] point in degrees");
        bad = true;
      }
    });
    const first = ring[0] as number[];
    const last = ring[ring.length - 1] as number[];
    if (!bad && (first[0] !== last[0] || first[1] !== last[1])) fail(v, `${field}.polygon`, "must be a closed ring: the last point repeats the first");
    return { polygon: ring as Array<[number, number]> };
  }
  if (value.lat === undefined && value.lon === undefined && value.radiusKm === undefined) {
    fail(v, field, "must be a zone: {airport}, {lat, lon, radiusKm} or {polygon}");
    return { airport: "" };
  }
  const lat = number(v, value.lat, `${field}.lat`, -90, 90);
  const lon = number(v, value.lon, `${field}.lon`, -180, 180);
  const radiusKm = number(v, value.radiusKm, `${field}.radiusKm`, 0.1, RATE_CARD_LIMITS.radiusKm);
  return { lat: lat ?? 0, lon: lon ?? 0, radiusKm: radiusKm ?? 0 };

}

function isLat(v: unknown): boolean {
  return typeof v === "number" && Number.isFinite(v) && v >= -90 && v <= 90;
}
function isLon(v: unknown): boolean {
  return typeof v === "number" && Number.isFinite(v) && v >= -180 && v <= 180;
}
