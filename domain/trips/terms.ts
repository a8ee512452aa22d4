import type { FieldError } from "../errors";
import type { AirportDirectory } from "../airports";
import { isoAt, type Booking, type Fee, type Terms, type TripLocation } from "./booking";

export type { Terms } from "./booking";
import { currencyOfFees } from "./booking-amounts";

/**
 * A provider's terms (docs/terms.md#policies, docs/terms.md#the-cancellation-fee): its cancellation tiers and free waiting, the terms each quote option and
 * booking carries (instants fixed when it is made), and the fee a requester's cancel costs at a given moment.
 */

/** One cancellation tier: cancelling until `beforeMinutes` before the pickup costs `percent` of the fare. */
export interface CancellationTier {
  beforeMinutes: number;
  percent: number;
}

/** A provider's policies as it set them (integration `policies`); what it did not set takes the default. */
export interface Policies {
  /** Absent: the default (free until 1 h before the pickup, 24 h for an HOURLY trip; then the whole fare). */
  cancellation?: CancellationTier[];
  freeWaitingMinutes?: { airport?: number; other?: number };
}

/** The policies as the integration settings show them: every default filled in. */
export interface PoliciesView {
  cancellation: CancellationTier[];
  freeWaitingMinutes: { airport: number; other: number };
}

export const DEFAULT_CANCELLATION: readonly CancellationTier[] = [
  { beforeMinutes: 60, percent: 0 },
  { beforeMinutes: 0, percent: 100 },
];
export const DEFAULT_HOURLY_CANCELLATION: readonly CancellationTier[] = [
  { beforeMinutes: 1440, percent: 0 },
  { beforeMinutes: 0, percent: 100 },
];
export const DEFAULT_FREE_WAITING = { airport: 60, other: 15 } as const;

export const MAX_CANCELLATION_TIERS = 10;
/** A tier reaches at most 30 days before the pickup. */
export const MAX_BEFORE_MINUTES = 43_200;
export const MAX_FREE_WAITING_MINUTES = 1440;

/** The policies with every default filled in (the non-hourly cancellation default). */
export function policiesView(p: Policies | undefined): PoliciesView {
  return {
    cancellation: (p?.cancellation ?? DEFAULT_CANCELLATION).map((t) => ({ ...t })),
    freeWaitingMinutes: {
      airport: p?.freeWaitingMinutes?.airport ?? DEFAULT_FREE_WAITING.airport,
      other: p?.freeWaitingMinutes?.other ?? DEFAULT_FREE_WAITING.other,
    },
  };
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const wholeIn = (v: unknown, min: number, max: number): v is number => typeof v === "number" && Number.isInteger(v) && v >= min && v <= max;

/**
 * A `policies` patch checked against the current policies: null resets all to the defaults; `cancellation` null
 * resets the tiers, `freeWaitingMinutes` merges per figure (null resets it). Every failing field is named.
 */
export function checkPolicies(input: unknown, current: Policies | undefined, errors: FieldError[]): Policies | undefined {
  if (input === null) return {};
  if (!isObject(input)) {
    errors.push({ field: "policies", message: "must be an object {cancellation, freeWaitingMinutes} or null" });
    return undefined;
  }
  const next: Policies = { ...current };
  for (const key of Object.keys(input))
    if (key !== "cancellation" && key !== "freeWaitingMinutes") errors.push({ field: `policies.${key}`, message: "is not a policy" });
  const before = errors.length;
  if (input.cancellation === null) delete next.cancellation;
  else if (input.cancellation !== undefined) {
    const tiers = checkTiers(input.cancellation, errors);
    if (tiers) next.cancellation = tiers;
  }
  const waiting = input.freeWaitingMinutes;
  if (waiting === null) delete next.freeWaitingMinutes;
  else if (waiting !== undefined) {
    if (!isObject(waiting)) errors.push({ field: "policies.freeWaitingMinutes", message: "must be an object {airport, other}" });
    else {
      const merged = { ...next.freeWaitingMinutes };
      for (const key of Object.keys(waiting))
        if (key !== "airport" && key !== "other") errors.push({ field: `policies.freeWaitingMinutes.${key}`, message: "must be airport or other" });
      for (const key of ["airport", "other"] as const) {
        const v = waiting[key];
        if (v === undefined) continue;
        if (v === null) delete merged[key];
        else if (!wholeIn(v, 0, MAX_FREE_WAITING_MINUTES))
          errors.push({ field: `policies.freeWaitingMinutes.${key}`, message: `must be a whole number of minutes from 0 to ${MAX_FREE_WAITING_MINUTES}` });
        else merged[key] = v;
      }
      next.freeWaitingMinutes = merged;
    }
  }
  return errors.length > before ? undefined : next;
}

function checkTiers(input: unknown, errors: FieldError[]): CancellationTier[] | undefined {
  if (!Array.isArray(input) || input.length === 0 || input.length > MAX_CANCELLATION_TIERS) {
    errors.push({ field: "policies.cancellation", message: `must list 1 to ${MAX_CANCELLATION_TIERS} tiers {beforeMinutes, percent}` });
    return undefined;
  }
  const before = errors.length;
  const tiers: CancellationTier[] = [];
  const seen = new Set<number>();
  input.forEach((tier, i) => {
    const at = `policies.cancellation[${i}]`;
    if (!isObject(tier)) return errors.push({ field: at, message: "must be an object {beforeMinutes, percent}" });
    const { beforeMinutes, percent } = tier;
    let ok = true;
    if (!wholeIn(beforeMinutes, 0, MAX_BEFORE_MINUTES)) {
      errors.push({ field: `${at}.beforeMinutes`, message: `must be a whole number of minutes from 0 to ${MAX_BEFORE_MINUTES}` });
      ok = false;
    } else if (seen.has(beforeMinutes)) {
      errors.push({ field: `${at}.beforeMinutes`, message: "must differ from every other tier's" });
      ok = false;
    }
    if (!wholeIn(percent, 0, 100)) {
      errors.push({ field: `${at}.percent`, message: "must be a whole number from 0 to 100" });
      ok = false;
    }
    if (ok) {
      seen.add(beforeMinutes as number);
      tiers.push({ beforeMinutes: beforeMinutes as number, percent: percent as number });
    }
  });
  return errors.length > before ? undefined : tiers.sort((a, b) => b.beforeMinutes - a.beforeMinutes);
}

const IATA = /^[A-Za-z]{3}$/;

/** Whether a pickup is at an airport: `locationType` airport, or an IATA code the directory knows (address, landmark, airportCode). */
export function isAirportPickup(pickup: TripLocation | undefined, airports: Pick<AirportDirectory, "lookup">): boolean {
  if (!pickup) return false;
  if ((pickup.locationType ?? "").trim().toLowerCase() === "airport") return true;
  const known = (v: unknown) => typeof v === "string" && IATA.test(v.trim()) && airports.lookup(v.trim()) !== undefined;
  return [pickup.address, pickup.landmark, pickup.airportCode].some(known);
}

/** Whether a trip is booked by the hour (runType HOURLY). */
export function isHourlyTrip(trip: { runType?: string }): boolean {
  return (trip.runType ?? "").trim().toUpperCase() === "HOURLY";
}

/**
 * The terms a provider's policies give a trip picked up at `pickupDate` (Unix seconds): each tier's instant, the
 * free window's end, the free waiting minutes. An HOURLY trip without tiers of the provider's own is free until 24 h.
 */
export function termsFor(policies: Policies | undefined, pickupDate: number, trip: { hourly: boolean; airport: boolean }): Terms {
  const tiers = [...(policies?.cancellation ?? (trip.hourly ? DEFAULT_HOURLY_CANCELLATION : DEFAULT_CANCELLATION))].sort(
    (a, b) => b.beforeMinutes - a.beforeMinutes,
  );
  const cancellation = tiers.map((t) => ({ until: isoAt(pickupDate - t.beforeMinutes * 60), percent: t.percent }));
  let free: string | null = null;
  for (const tier of cancellation) {
    if (tier.percent !== 0) break;
    free = tier.until;
  }
  const view = policiesView(policies);
  return { freeCancellationUntil: free, cancellation, freeWaitingMinutes: trip.airport ? view.freeWaitingMinutes.airport : view.freeWaitingMinutes.other };
}

/** The percent of the fare cancelling at `now` (Unix seconds) costs under `terms`: the first tier not yet past, else the last. */
export function cancelPercentAt(terms: Terms, now: number): number {
  const tiers = terms.cancellation;
  if (tiers.length === 0) return 0;
  for (const tier of tiers) if (now * 1000 <= Date.parse(tier.until)) return tier.percent;
  return tiers[tiers.length - 1].percent;
}

export const CANCELLATION_FEE_CODE = "CANCELLATION_FEE";

/** What cancelling a booking now costs its requester (GET /api/reservation/{id}/cancel-fee). */
export interface CancelFee {
  fee: string;
  currency: string | null;
  percent: number;
  freeUntil: string | null;
}

/** `percent` of a decimal amount, rounded half up in the amount's own minor unit ("120.00" × 25 → "30.00", JPY "5001" × 50 → "2501"). */
export function percentOf(amount: string, percent: number): string {
  const m = /^(\d+)(?:\.(\d+))?$/.exec(amount.trim());
  if (!m) return "0";
  const digits = (m[2] ?? "").length;
  const units = BigInt(m[1] + (m[2] ?? ""));
  const fee = (units * BigInt(percent) * 2n + 100n) / 200n;
  if (digits === 0) return fee.toString();
  const s = fee.toString().padStart(digits + 1, "0");
  return `${s.slice(0, -digits)}.${s.slice(-digits)}`;
}

/**
 * The cancel fee of a booking at `now`: `percent` of its price (its totalAmount, in its currency's minor unit) per the
 * terms it was made under. A booking without terms (made before terms existed) or without a price costs nothing.
 */
export function cancelFeeAt(b: Pick<Booking, "terms" | "totalAmount" | "trip">, now: number): CancelFee {
  const currency = currencyOfFees(b.trip.fees) ?? null;
  if (!b.terms) return { fee: zeroLike(b.totalAmount), currency, percent: 0, freeUntil: null };
  const percent = cancelPercentAt(b.terms, now);
  const fee = b.totalAmount === null ? "0" : percentOf(b.totalAmount, percent);
  return { fee, currency, percent: b.totalAmount === null ? 0 : percent, freeUntil: b.terms.freeCancellationUntil };
}

const zeroLike = (amount: string | null) => (amount === null ? "0" : percentOf(amount, 0));

/** The fee line a late cancel adds (docs/terms.md#the-cancellation-fee): `amount` (and `fee`, as every fee line names its amount) in the booking's currency. */
export function cancellationFeeLine(fee: CancelFee): Fee {
  return {
    type: "CANCELLATION",
    code: CANCELLATION_FEE_CODE,
    name: `Cancellation fee (${fee.percent}% of the fare)`,
    amount: fee.fee,
    fee: fee.fee,
    ...(fee.currency ? { currency: fee.currency } : {}),
    percent: fee.percent,
  };
}

/** Whether a fee amount is above zero. */
export const isCharged = (fee: CancelFee) => /[1-9]/.test(fee.fee);

/**
 * What a requester's cancel at `now` changes of the booking (docs/terms.md#the-cancellation-fee): after the free window, the fee line
 * added and `totalAmount` set to the fee, with the changeLogs words; nothing inside the window, for a quote, or for a
 * booking made without terms. A provider's REJECT or cancel never comes here.
 */
export function lateCancelFee(b: Pick<Booking, "status" | "terms" | "totalAmount" | "trip">, now: number): { charged: Partial<Booking>; said: string } {
  if (b.status === "QUOTE") return { charged: {}, said: "" };
  const fee = cancelFeeAt(b, now);
  if (!isCharged(fee)) return { charged: {}, said: "" };
  return {
    charged: { totalAmount: fee.fee, trip: { ...b.trip, fees: [...b.trip.fees, cancellationFeeLine(fee)] } },
    said: `; cancellation fee ${fee.fee}${fee.currency ? ` ${fee.currency}` : ""} (${fee.percent}%)`,
  };
}

/**
 * What cancelling costs the requester now (GET /api/reservation/{id}/cancel-fee): for a cancelled booking, the fee it
 * was charged; for a quote, nothing; otherwise cancelFeeAt `now`.
 */
export function cancelFeeNow(b: Pick<Booking, "status" | "terms" | "totalAmount" | "trip">, now: number): CancelFee {
  const freeUntil = b.terms?.freeCancellationUntil ?? null;
  const currency = currencyOfFees(b.trip.fees) ?? null;
  if (b.status === "CANCEL") {
    const line = b.trip.fees.find((f) => f.code === CANCELLATION_FEE_CODE && f.type === "CANCELLATION");
    const percent = typeof line?.percent === "number" ? line.percent : 0;
    return { fee: typeof line?.fee === "string" ? line.fee : zeroLike(b.totalAmount), currency, percent, freeUntil };
  }
  if (b.status === "QUOTE") return { fee: "0", currency, percent: 0, freeUntil: null };
  return cancelFeeAt(b, now);
}

/** The same terms for a pickup moved by `seconds`: every instant moved with it (the tiers and waiting unchanged). */
export function movedTerms(terms: Terms, seconds: number): Terms {
  if (seconds === 0) return terms;
  const move = (instant: string) => isoAt(Date.parse(instant) / 1000 + seconds);
  return {
    ...terms,
    freeCancellationUntil: terms.freeCancellationUntil === null ? null : move(terms.freeCancellationUntil),
    cancellation: terms.cancellation.map((t) => ({ ...t, until: move(t.until) })),
  };
}
