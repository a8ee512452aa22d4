import type { Surcharge } from "./card";
import type { RouteIndex } from "./route-index";

/**
 * The lower bound a network quote ranks carded providers by (docs/performance.md#rate-cards-issue-35), read from a card's terms packed in one
 * array, and the surcharge rules it shares with the pricer (card-pricing.ts): a quote bounds hundreds of cards per trip.
 */

/** A surcharge with its amount in minor units and its clock as numbers (a quote tests hundreds of cards' surcharges). */
export type CompiledSurcharge = Surcharge & {
  units: number;
  /** night: the window's start and end, minutes after local midnight. */
  fromMinute: number;
  toMinute: number;
  /** date: the days as month × 100 + day. */
  days: number[];
};

/** Minutes after midnight of `HH:mm`. */
export const minuteOf = (hm: string): number => Number(hm.slice(0, 2)) * 60 + Number(hm.slice(3, 5));
/** A `MM-DD` day as month × 100 + day. */
export const dayOf = (md: string): number => Number(md.slice(0, 2)) * 100 + Number(md.slice(3, 5));

/** What packFloorTerms reads of a compiled card. */
export interface FloorSource {
  minimumFare: number;
  hourlyForAll: boolean;
  /** `types` undefined: a rule for every type; `upToKm` Infinity: any length. */
  distance: ReadonlyArray<{
    types: ReadonlySet<string> | undefined;
    rule: { base: number; includedKm: number; perKm: number; upToKm: number };
  }>;
  hourly: ReadonlyArray<{ rule: { perHour: number; minimumQuarters: number } }>;
  surcharges: readonly CompiledSurcharge[];
}

/** What cardFloor reads of a compiled card (card-pricing.ts CompiledCard). */
export interface FloorCard {
  floorTerms: Float64Array;
  routeIndex: Pick<RouteIndex, "cheapest">;
  extras: ReadonlyMap<string, { units: number }>;
  surcharges: readonly CompiledSurcharge[];
}

/** What cardFloor reads of the trip (card-pricing.ts PricedTrip); its road distance runs along its stops (cardFloor's `roadKm`). */
export interface FloorTrip {
  pickup: { lat: number; lon: number };
  pickupAirport?: string;
  hourly: boolean;
  quarterHours: number;
  localTime?: string;
  clock?: TripClock;
  extras: ReadonlyArray<{ code: string; quantity: number }>;
}

/**
 * What cardFloor reads of a card besides its routes, in one array: a network quote bounds hundreds of cards per trip,
 * and reading each card's rules from their own objects costs a cache miss each (docs/performance.md#rate-cards-issue-35). Layout: minimum fare,
 * flags (1: an hourly rule for every type), the distance rules' count then (base, includedKm, perKm, upToKm, 1 for
 * a rule of every type else 0) each, the hourly rules' count then (perHour, minimumQuarters) each, the surcharges' count
 * then (kind, units, percent or NaN, a, b) each — night: a and b the window's minutes; date: the days' offset in the
 * array and their count; airport pickup: its index in `card.surcharges` — then the date surcharges' days.
 */
export function packFloorTerms(card: FloorSource): Float64Array {
  const out: number[] = [card.minimumFare, card.hourlyForAll ? 1 : 0, card.distance.length];
  for (const { types, rule } of card.distance) out.push(rule.base, rule.includedKm, rule.perKm, rule.upToKm, types === undefined ? 1 : 0);
  out.push(card.hourly.length);
  for (const { rule } of card.hourly) out.push(rule.perHour, rule.minimumQuarters);
  out.push(card.surcharges.length);
  const days: number[] = [];
  const dayLists: Array<{ at: number; days: number[] }> = [];
  card.surcharges.forEach((s, j) => {
    const percent = s.percent ?? NaN;
    if (s.kind === "night") out.push(SURCHARGE_NIGHT, s.units, percent, s.fromMinute, s.toMinute);
    else if (s.kind === "date") {
      dayLists.push({ at: out.length + 3, days: s.days });
      out.push(SURCHARGE_DATE, s.units, percent, 0, s.days.length);
    } else out.push(SURCHARGE_AIRPORT, s.units, percent, j, 0);
  });
  for (const list of dayLists) {
    out[list.at] = out.length + days.length;
    days.push(...list.days);
  }
  return Float64Array.from([...out, ...days]);
}
const SURCHARGE_AIRPORT = 0;
const SURCHARGE_NIGHT = 1;
const SURCHARGE_DATE = 2;

/**
 * A lower bound of `cardQuote(card, trip).units(type, own)` for every type and every `own ≥ ownFloor`, found without
 * testing a route or allocating: the cheapest base among the hourly rules (an hourly trip; only those when one prices
 * every type, as it comes before any route), the pickup's candidate routes and the distance rules whose band holds
 * the trip (and `ownFloor`, unless a rule prices every type), with the surcharges that apply, the minimum fare and the
 * extras (each adds at least 0, and a percent grows with the base); 0 when that base is 0 (such a vehicle has no
 * price: counted, never offered, so its provider must be priced). A network quote meets
 * hundreds of cards: it ranks providers by this bound and prepares the cards of those that can place an option
 * (docs/performance.md#rate-cards-issue-35). `roadKm` is the trip's (cardRoadKm), undefined without a drop-off. It reads the card's packed
 * terms (packFloorTerms) and its route index's cheapest route per cell.
 */
export function cardFloor(card: FloorCard, trip: FloorTrip, roadKm: number | undefined, ownFloor: number): number {
  const t = card.floorTerms;
  let base = Infinity;
  let at = 3;
  const distanceRules = t[2];
  // An hourly rule for every type prices every vehicle of an hourly trip before any route or distance rule.
  const hourlyOnly = trip.hourly && (t[1] & 1) !== 0;
  let distanceForAll = false;
  if (roadKm !== undefined && !hourlyOnly) {
    base = card.routeIndex.cheapest(trip.pickup, trip.pickupAirport);
    for (let k = 0; k < distanceRules; k++, at += 5) {
      if (roadKm > t[at + 3]) continue;
      const u = t[at] + Math.round(t[at + 2] * Math.max(0, roadKm - t[at + 1]));
      if (u < base) base = u;
      if (t[at + 4] === 1) distanceForAll = true;
    }
  } else at += 5 * distanceRules;
  const hourlyRules = t[at++];
  if (trip.hourly)
    for (let k = 0; k < hourlyRules; k++) {
      const u = Math.floor((t[at + 2 * k] * Math.max(trip.quarterHours, t[at + 2 * k + 1]) + 2) / 4);
      if (u < base) base = u;
    }
  at += 2 * hourlyRules;
  // A type no rule prices is priced on its own rates (at least ownFloor).
  if (!(hourlyOnly || distanceForAll) && ownFloor < base) base = ownFloor;
  if (base <= 0) return 0;
  let extras = 0;
  for (const asked of trip.extras) extras += (card.extras.get(asked.code)?.units ?? 0) * asked.quantity;
  let total = base;
  const surcharges = t[at++];
  const clock = trip.clock ?? tripClock(trip.localTime);
  for (let k = 0; k < surcharges; k++, at += 5) {
    const kind = t[at];
    let applies: boolean;
    if (kind === SURCHARGE_AIRPORT) applies = trip.pickupAirport !== undefined && surchargeApplies(card.surcharges[t[at + 3]], trip);
    else if (!clock) applies = false;
    else if (kind === SURCHARGE_NIGHT) {
      applies = inNightWindow(clock.minute, t[at + 3], t[at + 4]);
    } else {
      applies = false;
      for (let d = t[at + 3], end = d + t[at + 4]; d < end && !applies; d++) applies = t[d] === clock.day;
    }
    if (applies) total += Number.isNaN(t[at + 2]) ? t[at + 1] : Math.round((base * t[at + 2]) / 100);
  }
  return (total < t[0] ? t[0] : total) + extras;
}

/** Whether surcharge `s` applies to the trip: its airports, its dates or its night window, in the pickup's own clock. */
export function surchargeApplies(s: CompiledSurcharge, trip: Pick<FloorTrip, "pickupAirport" | "clock" | "localTime">): boolean {
  if (s.kind === "airportPickup") return trip.pickupAirport !== undefined && (s.airports ?? []).includes(trip.pickupAirport);
  const clock = trip.clock ?? tripClock(trip.localTime);
  if (!clock) return false;
  if (s.kind === "date") return s.days.includes(clock.day);
  return inNightWindow(clock.minute, s.fromMinute, s.toMinute);
}

/** A minute of the day in the window from `from` to `to` (minutes; from after to: across midnight). */
const inNightWindow = (minute: number, from: number, to: number): boolean => (from <= to ? minute >= from && minute < to : minute >= from || minute < to);

/** The pickup's local day (month × 100 + day) and minute of the day, as surcharges test them. */
export interface TripClock {
  day: number;
  minute: number;
}

/** The clock of a wall-clock time `YYYY-MM-DDTHH:mm` (undefined without one). */
export function tripClock(localTime: string | undefined): TripClock | undefined {
  return localTime ? { day: dayOf(localTime.slice(5, 10)), minute: minuteOf(localTime.slice(11, 16)) } : undefined;
}

