import type { FieldError } from "../errors";
import { amountParts } from "../money";
import { DEFAULT_ETA_SPEED_KMH } from "../tracking/eta";

/**
 * The provider's policies for the trip itself (docs/terms.md#policies, docs/flights.md): what waiting beyond the free
 * minutes costs, the speed its ETA assumes, and how long before the pickup a chauffeur is assigned. Checked here,
 * shown with the other policies.
 */
export interface TripPolicies {
  /** Waiting beyond the free minutes: `amount` (a decimal string, the fare's currency) per started `perMinutes`. */
  waitingRate?: WaitingRate;
  /** The speed the ETA assumes (km/h, default 40). */
  etaSpeedKmh?: number;
  /** A chauffeur is assigned this many minutes before the pickup (default 120; docs/terms.md#the-assignment-deadline). */
  assignBeforeMinutes?: number;
}

export interface WaitingRate {
  amount: string;
  perMinutes: number;
}

export const DEFAULT_WAITING_PER_MINUTES = 15;
export const WAITING_PER_MINUTES = { min: 1, max: 240 } as const;
export const ETA_SPEED_KMH = { min: 5, max: 150 } as const;
export const DEFAULT_ASSIGN_BEFORE_MINUTES = 120;
export const ASSIGN_BEFORE_MINUTES = { min: 0, max: 1440 } as const;
/** A waiting amount is above 0 and at most this (as every card amount), with at most 3 decimals (BHD's). */
export const MAX_WAITING_AMOUNT = 1_000_000;
export const TRIP_POLICY_NAMES = ["waitingRate", "etaSpeedKmh", "assignBeforeMinutes"] as const;
export { DEFAULT_ETA_SPEED_KMH };

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const wholeIn = (v: unknown, b: { min: number; max: number }): v is number =>
  typeof v === "number" && Number.isInteger(v) && v >= b.min && v <= b.max;

/** The policies' view of these: the defaults filled in (`waitingRate` only when set). */
export function tripPoliciesView(p: TripPolicies | undefined) {
  return {
    ...(p?.waitingRate ? { waitingRate: { ...p.waitingRate } } : {}),
    etaSpeedKmh: p?.etaSpeedKmh ?? DEFAULT_ETA_SPEED_KMH,
    assignBeforeMinutes: p?.assignBeforeMinutes ?? DEFAULT_ASSIGN_BEFORE_MINUTES,
  };
}

/** A waiting amount as sent (a decimal string or number), checked; undefined after naming the field in `errors`. */
function checkAmount(v: unknown, errors: FieldError[]): string | undefined {
  const text = typeof v === "number" && Number.isFinite(v) ? String(v) : typeof v === "string" ? v.trim() : undefined;
  const parts = text === undefined ? undefined : amountParts(text);
  const value = text === undefined ? NaN : Number(text);
  if (!parts || parts.decimals.length > 3 || !(value > 0) || value > MAX_WAITING_AMOUNT) {
    errors.push({
      field: "policies.waitingRate.amount",
      message: `must be a decimal amount above 0 and at most ${MAX_WAITING_AMOUNT.toLocaleString("en-US")}.00, in the fare's minor unit (e.g. "30.00")`,
    });
    return undefined;
  }
  return text!;
}

/**
 * These members of a `policies` patch checked into `next` (null resets one to its default; `waitingRate` merges
 * `perMinutes` as 15 when left out). Every failing field is named in `errors`.
 */
export function checkTripPolicies(input: Record<string, unknown>, next: TripPolicies, errors: FieldError[]): void {
  const rate = input.waitingRate;
  if (rate === null) delete next.waitingRate;
  else if (rate !== undefined) {
    if (!isObject(rate)) errors.push({ field: "policies.waitingRate", message: "must be an object {amount, perMinutes} or null" });
    else {
      for (const key of Object.keys(rate))
        if (key !== "amount" && key !== "perMinutes") errors.push({ field: `policies.waitingRate.${key}`, message: "must be amount or perMinutes" });
      const amount = checkAmount(rate.amount, errors);
      const per = rate.perMinutes ?? DEFAULT_WAITING_PER_MINUTES;
      const perOk = wholeIn(per, WAITING_PER_MINUTES);
      if (!perOk)
        errors.push({
          field: "policies.waitingRate.perMinutes",
          message: `must be a whole number of minutes from ${WAITING_PER_MINUTES.min} to ${WAITING_PER_MINUTES.max}`,
        });
      if (amount !== undefined && perOk) next.waitingRate = { amount, perMinutes: per };
    }
  }
  const whole = (name: "etaSpeedKmh" | "assignBeforeMinutes", bounds: { min: number; max: number }, unit: string) => {
    const v = input[name];
    if (v === null) delete next[name];
    else if (v !== undefined) {
      if (wholeIn(v, bounds)) next[name] = v;
      else errors.push({ field: `policies.${name}`, message: `must be a whole number of ${unit} from ${bounds.min} to ${bounds.max}` });
    }
  };
  whole("etaSpeedKmh", ETA_SPEED_KMH, "km/h");
  whole("assignBeforeMinutes", ASSIGN_BEFORE_MINUTES, "minutes");
}
