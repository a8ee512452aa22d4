import { roundToMinorUnits, toTenThousandths } from "../currency";
import { nameProblem } from "../shared/unicode-text";
import type { RateCard, ZoneInput } from "./card";
import { dayOf, minuteOf, packFloorTerms, type CompiledSurcharge } from "./card-floor";
import { circleBox, routeIndex, type RouteIndex, type ZoneBox } from "./route-index";

// A stored rate card compiled for pricing (docs/rates.md#setting-the-card): once per stored version, amounts in minor
// units, zones with their bounding boxes and the route index. card-pricing.ts prices trips with it.

/** An `{airport}` zone's radius around the airport's position. */
export const AIRPORT_ZONE_KM = 5;

/** Where an airport is, for `{airport}` zones. */
export type AirportPositions = (iata: string) => { lat: number; lon: number } | undefined;

/** A zone ready to test: circles as centre + radius, polygons with their bounding box. */
export type Zone =
  | { kind: "circle"; lat: number; lon: number; radiusKm: number; airport?: string }
  | { kind: "polygon"; ring: Array<[number, number]>; minLon: number; maxLon: number; minLat: number; maxLat: number };

interface Priced<T> {
  rule: T;
  types: ReadonlySet<string> | undefined;
}

/** A card compiled once per stored version: amounts in minor units, zones with bounding boxes. */
export interface CompiledCard {
  currency: string;
  digits: number;
  minimumFare: number;
  routes: Array<Priced<{ id: string; from: Zone; to: Zone; bothWays: boolean; price: number }>>;
  /** `upToKm`: the band's longest trip (Infinity: any length). */
  distance: Array<Priced<{ id: string; base: number; includedKm: number; perKm: number; upToKm: number }>>;
  hourly: Array<Priced<{ id: string; perHour: number; minimumQuarters: number }>>;
  surcharges: CompiledSurcharge[];
  extras: Map<string, { code: string; name: string; units: number; max: number | undefined }>;
  /** The routes by where a pickup can fall in them: a trip tests the few near it (docs/performance.md#rate-cards-issue-35). */
  routeIndex: RouteIndex;
  /** Per vehicle type, the first hourly rule that prices it (-1: none) and its distance rules in card order, filled as types are met. */
  rulesByType: Map<string, { hourly: number; distance: number[] }>;
  /** An hourly rule for every type (no vehTypes): with it a vehicle's own rates never price an hourly trip. */
  hourlyForAll: boolean;
  /** What cardFloor reads besides the routes, packed in one array (packFloorTerms). */
  floorTerms: Float64Array;
}

const units = (amount: string | undefined, digits: number): number => (amount === undefined ? 0 : roundToMinorUnits(toTenThousandths(amount) ?? 0, digits));

function compileZone(z: ZoneInput, airports: AirportPositions): Zone {
  if ("airport" in z) {
    const p = airports(z.airport);
    return { kind: "circle", lat: p?.lat ?? 0, lon: p?.lon ?? 0, radiusKm: p ? AIRPORT_ZONE_KM : -1, airport: z.airport };
  }
  if ("polygon" in z) {
    let [minLon, maxLon, minLat, maxLat] = [Infinity, -Infinity, Infinity, -Infinity];
    for (const [lon, lat] of z.polygon) {
      minLon = Math.min(minLon, lon);
      maxLon = Math.max(maxLon, lon);
      minLat = Math.min(minLat, lat);
      maxLat = Math.max(maxLat, lat);
    }
    return { kind: "polygon", ring: z.polygon, minLon, maxLon, minLat, maxLat };
  }
  return { kind: "circle", lat: z.lat, lon: z.lon, radiusKm: z.radiusKm };
}

/** Where a zone can hold a point, as the route index reads it (a superset of what inZone accepts). */
function boxOf(z: Zone): ZoneBox | { airport: string } | undefined {
  if (z.kind === "polygon") return { minLat: z.minLat, maxLat: z.maxLat, minLon: z.minLon, maxLon: z.maxLon };
  const box = circleBox(z.lat, z.lon, z.radiusKm);
  if (z.airport === undefined) return box;
  return box ? { ...box, airport: z.airport } : { airport: z.airport };
}

/**
 * The largest fare a card prices, in minor units (docs/rates.md#setting-the-card): every amount of a card is at most
 * 1,000,000, but 200 percentage surcharges on a 5,000 km trip could pass 2^53, where a sum of lines is no longer
 * exact. A fare beyond it is no price: the vehicle is never offered.
 */
export const MAX_FARE_UNITS = Number.MAX_SAFE_INTEGER;

/** A stored line name as quotes show it: one saved before names followed the name rules shows the default instead. */
const shownName = (name: string | undefined) => (name === undefined || nameProblem(name) ? undefined : name);

/** Compiles a stored card (its currency has `digits` decimals). */
export function compileCard(card: RateCard, digits: number, airports: AirportPositions): CompiledCard {
  const types = (t: string[] | undefined) => (t ? new Set(t) : undefined);
  const routes = card.routes.map((r) => ({
    types: types(r.vehTypes),
    rule: { id: r.id, from: compileZone(r.from, airports), to: compileZone(r.to, airports), bothWays: r.bothWays, price: units(r.price, digits) },
  }));
  const compiled: Omit<CompiledCard, "floorTerms"> = {
    currency: card.currency,
    digits,
    minimumFare: units(card.minimumFare, digits),
    routes,
    routeIndex: routeIndex(
      routes.map(({ rule: r }) => (r.bothWays ? [boxOf(r.from), boxOf(r.to)] : [boxOf(r.from)])),
      routes.map(({ rule }) => rule.price),
    ),
    distance: card.distance.map((r) => ({
      types: types(r.vehTypes),
      rule: { id: r.id, base: units(r.base, digits), includedKm: r.includedKm, perKm: units(r.perKm, digits), upToKm: r.upToKm ?? Infinity },
    })),
    hourly: card.hourly.map((r) => ({
      types: types(r.vehTypes),
      rule: { id: r.id, perHour: units(r.perHour, digits), minimumQuarters: Math.ceil(r.minimumHours * 4 - 1e-9) },
    })),
    surcharges: card.surcharges.map((s) => ({
      ...s,
      name: shownName(s.name),
      units: units(s.amount, digits),
      fromMinute: minuteOf(s.from ?? "00:00"),
      toMinute: minuteOf(s.to ?? "00:00"),
      days: (s.dates ?? []).map(dayOf),
    })),
    extras: new Map(card.extras.map((e) => [e.code, { code: e.code, name: shownName(e.name) ?? e.code, units: units(e.price, digits), max: e.max }])),
    rulesByType: new Map(),
    hourlyForAll: card.hourly.some((r) => r.vehTypes === undefined),
  };
  return { ...compiled, floorTerms: packFloorTerms(compiled) };
}
