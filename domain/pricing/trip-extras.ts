import { ValidationError, type FieldError } from "../errors";
import type { TripWarning } from "../trips/warnings";

/** An extra a trip asks (docs/rates.md#how-a-vehicle-is-priced). */
export interface AskedExtra {
  code: string;
  quantity: number;
  /**
   * Asked by a GNet flag (meetAndGreet), not by `extras`: only a provider with a rate card is held to it. One
   * without a card prices as before (the flag stays a note to the chauffeur), so GNet trips are not refused by
   * every provider that has not published a card.
   */
  implied?: true;
}

const CODE = /^[A-Z][A-Z0-9_]{0,31}$/;
export const MAX_TRIP_EXTRAS = 20;

/**
 * The extras a trip asks: its `extras: [{code, quantity}]` (quantity 1 when absent; the same code twice adds up),
 * and MEET_AND_GREET when GNet's `meetAndGreet` on the pickup is "True". A bad list is a ValidationError naming each
 * field. `stops`: how many intermediate stops (each asks EXTRA_STOP when the card prices it).
 */
export function askedExtras(trip: { extras?: unknown; locations?: { pickup?: { meetAndGreet?: unknown }; stops?: unknown[] } }): {
  extras: AskedExtra[];
  stops: number;
} {
  const errors: FieldError[] = [];
  const asked = new Map<string, number>();
  const raw = trip.extras;
  if (raw !== undefined && raw !== null) {
    if (!Array.isArray(raw) || raw.length > MAX_TRIP_EXTRAS)
      errors.push({ field: "extras", message: `must be a list of at most ${MAX_TRIP_EXTRAS} {code, quantity}` });
    else
      raw.forEach((x, i) => {
        const item = (typeof x === "object" && x !== null ? x : {}) as { code?: unknown; quantity?: unknown };
        const code = typeof item.code === "string" ? item.code.trim().toUpperCase() : "";
        if (!CODE.test(code)) errors.push({ field: `extras[${i}].code`, message: "must be an extra code (CHILD_SEAT, MEET_AND_GREET…)" });
        const q = item.quantity === undefined ? 1 : typeof item.quantity === "string" ? Number(item.quantity) : item.quantity;
        if (typeof q !== "number" || !Number.isInteger(q) || q < 1 || q > 100)
          errors.push({ field: `extras[${i}].quantity`, message: "must be a whole number from 1 to 100" });
        else if (CODE.test(code)) asked.set(code, (asked.get(code) ?? 0) + q);
      });
  }
  if (errors.length > 0) throw new ValidationError(errors);
  const extras: AskedExtra[] = [...asked].map(([code, quantity]) => ({ code, quantity }));
  const mg = trip.locations?.pickup?.meetAndGreet;
  if ((mg === true || (typeof mg === "string" && mg.trim().toLowerCase() === "true")) && !asked.has("MEET_AND_GREET"))
    extras.push({ code: "MEET_AND_GREET", quantity: 1, implied: true });
  const stops = Array.isArray(trip.locations?.stops) ? trip.locations.stops.length : 0;
  return { extras, stops };
}

/**
 * Why a provider cannot supply an asked extra: its card offers at most `max` (fewer than `asked`), or does not offer
 * it (no `max`); `noCard`: it has no rate card, and only a card prices extras.
 */
export interface ExtraShortfall {
  code: string;
  asked: number;
  max?: number;
  noCard?: true;
}

/** The cause of a shortfall as the warning says it: "offers at most 2 CHILD_SEAT". */
export function shortfallCause(s: ExtraShortfall): string {
  if (s.noCard) return `has no rate card to price ${s.code}`;
  return s.max !== undefined ? `offers at most ${s.max} ${s.code} (${s.asked} asked)` : `does not offer ${s.code}`;
}

/** The shortfalls of a provider without a card: every extra the trip lists. */
export function noCardShortfalls(extras: readonly AskedExtra[]): ExtraShortfall[] {
  return extras.map((x) => ({ code: x.code, asked: x.quantity, noCard: true }));
}

/**
 * The EXTRA_NOT_OFFERED warning: `count` vehicles left out because their provider cannot supply asked extras, each
 * cause said once (docs/rates.md#extras), and the extras' codes.
 */
export function extraNotOffered(count: number, shortfalls: readonly ExtraShortfall[]): TripWarning {
  const causes = [...new Set(shortfalls.map(shortfallCause))].sort();
  const codes = [...new Set(shortfalls.map((s) => s.code))].sort();
  return { code: "EXTRA_NOT_OFFERED", message: `${count} vehicle(s) left out: their provider ${causes.join("; ")}`, count, codes };
}

/** The UNPRICED_VEHICLES warning: `count` vehicles whose base is 0 left out (docs/rates.md#how-a-vehicle-is-priced). */
export function unpricedVehicles(count: number): TripWarning {
  return {
    code: "UNPRICED_VEHICLES",
    message: `${count} vehicle(s) left out: no rate prices them (no rule of the rate card, and their own rates are 0), whatever the minimum fare`,
    count,
  };
}
