import type { FieldError } from "../errors";
import type { AirportDirectory } from "../airports";
import { isoAt, type Booking, type Fee, type Terms, type TripLocation } from "./booking";

export type { Terms } from "./booking";
import { currencyOfFees } from "./booking-amounts";
import { cancellableFare } from "./fare-lines";
import { CANCELLABLE_STATUSES, type TripStatus } from "./lifecycle";
import type { TripWarning } from "./warnings";
import { checkTripPolicies, TRIP_POLICY_NAMES, tripPoliciesView, type TripPolicies } from "./trip-policies";

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
export interface Policies extends TripPolicies {
  /** Absent: the default (free until 1 h before the pickup, 24 h for an HOURLY trip; then the whole fare). */
  cancellation?: CancellationTier[];
  freeWaitingMinutes?: { airport?: number; other?: number };
  /** The provider's own answer time (minutes): a new booking's acceptBy is at most this long after it. Absent: none. */
  acceptWithinMinutes?: number;
}

/** The policies as the integration settings show them: every default filled in (`acceptWithinMinutes` only when set). */
export interface PoliciesView extends ReturnType<typeof tripPoliciesView> {
  cancellation: CancellationTier[];
  freeWaitingMinutes: { airport: number; other: number };
  acceptWithinMinutes?: number;
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
/** A provider's own answer time (`policies.acceptWithinMinutes`) bounds. */
export const MIN_PROVIDER_ACCEPT_MINUTES = 5;
export const MAX_PROVIDER_ACCEPT_MINUTES = 1440;
const POLICY_NAMES: readonly string[] = ["cancellation", "freeWaitingMinutes", "acceptWithinMinutes", ...TRIP_POLICY_NAMES];

/** The policies with every default filled in (the non-hourly cancellation default). */
export function policiesView(p: Policies | undefined): PoliciesView {
  return {
    cancellation: (p?.cancellation ?? DEFAULT_CANCELLATION).map((t) => ({ ...t })),
    freeWaitingMinutes: {
      airport: p?.freeWaitingMinutes?.airport ?? DEFAULT_FREE_WAITING.airport,
      other: p?.freeWaitingMinutes?.other ?? DEFAULT_FREE_WAITING.other,
    },
    ...(p?.acceptWithinMinutes !== undefined ? { acceptWithinMinutes: p.acceptWithinMinutes } : {}),
    ...tripPoliciesView(p),
  };
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const wholeIn = (v: unknown, min: number, max: number): v is number => typeof v === "number" && Number.isInteger(v) && v >= min && v <= max;

/**
 * A `policies` patch checked against the current policies: null resets all to the defaults; `cancellation` null
 * resets the tiers, `freeWaitingMinutes` merges per figure (null resets it), `acceptWithinMinutes` null removes it.
 * Every failing field is named.
 */
export function checkPolicies(input: unknown, current: Policies | undefined, errors: FieldError[]): Policies | undefined {
  if (input === null) return {};
  if (!isObject(input)) {
    errors.push({ field: "policies", message: `must be an object {${POLICY_NAMES.join(", ")}} or null` });
    return undefined;
  }
  const next: Policies = { ...current };
  for (const key of Object.keys(input))
    if (!POLICY_NAMES.includes(key)) errors.push({ field: `policies.${key}`, message: `is not a policy (${POLICY_NAMES.join(", ")})` });
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
  const answer = input.acceptWithinMinutes;
  if (answer === null) delete next.acceptWithinMinutes;
  else if (answer !== undefined) {
    if (!wholeIn(answer, MIN_PROVIDER_ACCEPT_MINUTES, MAX_PROVIDER_ACCEPT_MINUTES))
      errors.push({
        field: "policies.acceptWithinMinutes",
        message: `must be a whole number of minutes from ${MIN_PROVIDER_ACCEPT_MINUTES} to ${MAX_PROVIDER_ACCEPT_MINUTES}`,
      });
    else next.acceptWithinMinutes = answer;
  }
  checkTripPolicies(input, next, errors);
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
  if (errors.length > before) return undefined;
  const sorted = tiers.sort((a, b) => b.beforeMinutes - a.beforeMinutes);
  // docs/terms.md#policies: cancelling later never costs less (or the same: such a tier would do nothing).
  for (let i = 1; i < sorted.length; i++) {
    const [earlier, later] = [sorted[i - 1], sorted[i]];
    if (later.percent <= earlier.percent) {
      errors.push({
        field: "policies.cancellation",
        message:
          `must cost more as the pickup nears: the tier at ${later.beforeMinutes} minutes before (${later.percent}%) costs ` +
          `${later.percent < earlier.percent ? "less than" : "the same as"} the one at ${earlier.beforeMinutes} (${earlier.percent}%)`,
      });
      return undefined;
    }
  }
  return sorted;
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
 * free window's end, the free waiting minutes, the assignment deadline. An HOURLY trip without tiers of the provider's own is free until 24 h.
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
  const freeWaitingMinutes = trip.airport ? view.freeWaitingMinutes.airport : view.freeWaitingMinutes.other;
  const waitingRate = view.waitingRate ? { waitingRate: view.waitingRate } : {};
  // docs/terms.md#the-assignment-deadline: a chauffeur is assigned by this instant.
  const assignBy = isoAt(pickupDate - view.assignBeforeMinutes * 60);
  return { freeCancellationUntil: free, cancellation, freeWaitingMinutes, ...waitingRate, assignBy };
}

/** The percent of the fare cancelling at `now` (Unix seconds) costs under `terms`: the first tier not yet past, else the last. */
export function cancelPercentAt(terms: Terms, now: number): number {
  const tiers = terms.cancellation;
  if (tiers.length === 0) return 0;
  for (const tier of tiers) if (now * 1000 <= Date.parse(tier.until)) return tier.percent;
  return tiers[tiers.length - 1].percent;
}

export const CANCELLATION_FEE_CODE = "CANCELLATION_FEE";

/**
 * Why cancelling costs what it does (docs/terms.md#the-cancellation-fee): NOT_ACCEPTED (free: the provider has not
 * accepted), FREE_WINDOW (free: a 0 % tier), LATE_CANCELLATION (a tier charges), CANCELLED (the fee the cancel was
 * charged), QUOTE, NO_TERMS (made before terms existed), NO_PRICE, NOT_CANCELLABLE (the requester can no longer cancel).
 */
export type CancelFeeReason =
  | "NOT_ACCEPTED"
  | "FREE_WINDOW"
  | "LATE_CANCELLATION"
  | "CANCELLED"
  | "QUOTE"
  | "NO_TERMS"
  | "NO_PRICE"
  | "NOT_CANCELLABLE";

/** What cancelling a booking now costs its requester (GET /api/reservation/{id}/cancel-fee). */
export interface CancelFee {
  fee: string;
  currency: string | null;
  percent: number;
  freeUntil: string | null;
  reason: CancelFeeReason;
  /** The fare the percent applies to: the quoted lines (never lines added later); null without a price. */
  fare: string | null;
}

/** Statuses in which the provider has not accepted the booking: cancelling costs nothing. */
const NOT_ACCEPTED: ReadonlySet<TripStatus> = new Set(["BOOKING_REQUEST", "PENDING", "FAILED"]);

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

type FeeFacts = Pick<Booking, "status" | "terms" | "totalAmount" | "trip" | "quoted">;

/**
 * The cancel fee of a booking at `now` (docs/terms.md#the-cancellation-fee): `percent` of its quoted fare (the lines
 * the quote priced, never lines the provider added later; in its currency's minor unit) per the terms it was made
 * under — nothing while its provider has not accepted it, nor for a booking without terms or without a price.
 */
export function cancelFeeAt(b: FeeFacts, now: number): CancelFee {
  const currency = currencyOfFees(b.trip.fees) ?? null;
  const fare = cancellableFare(b);
  const freeUntil = b.terms?.freeCancellationUntil ?? null;
  const free = (reason: CancelFeeReason): CancelFee => ({ fee: zeroLike(fare), currency, percent: 0, freeUntil, reason, fare });
  if (NOT_ACCEPTED.has(b.status)) return free("NOT_ACCEPTED");
  if (!b.terms) return free("NO_TERMS");
  if (fare === null) return free("NO_PRICE");
  const percent = cancelPercentAt(b.terms, now);
  if (percent === 0) return free("FREE_WINDOW");
  return { fee: percentOf(fare, percent), currency, percent, freeUntil, reason: "LATE_CANCELLATION", fare };
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
 * What a requester's cancel at `now` changes of the booking (docs/terms.md#the-cancellation-fee): once its provider
 * accepted and after the free window, the fee line added and `totalAmount` set to the fee, with the changeLogs words;
 * nothing before the provider accepts, inside the window, for a quote, or for a booking made without terms. A
 * provider's REJECT or cancel never comes here.
 */
export function lateCancelFee(b: FeeFacts, now: number): { charged: Partial<Booking>; said: string } {
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
 * was charged; for a quote, nothing; for a booking the requester can no longer cancel, nothing; otherwise cancelFeeAt `now`.
 */
export function cancelFeeNow(b: FeeFacts, now: number): CancelFee {
  const freeUntil = b.terms?.freeCancellationUntil ?? null;
  const currency = currencyOfFees(b.trip.fees) ?? null;
  const fare = cancellableFare(b);
  if (b.status === "CANCEL") {
    const line = b.trip.fees.find((f) => f.code === CANCELLATION_FEE_CODE && f.type === "CANCELLATION");
    const percent = typeof line?.percent === "number" ? line.percent : 0;
    return { fee: typeof line?.fee === "string" ? line.fee : zeroLike(fare), currency, percent, freeUntil, reason: "CANCELLED", fare };
  }
  if (b.status === "QUOTE") return { fee: "0", currency, percent: 0, freeUntil: null, reason: "QUOTE", fare: null };
  if (!CANCELLABLE_STATUSES.has(b.status)) return { fee: zeroLike(fare), currency, percent: 0, freeUntil, reason: "NOT_CANCELLABLE", fare };
  return cancelFeeAt(b, now);
}

/**
 * The warning for quote options already past their free cancellation (docs/terms.md#terms-on-every-quote-option-and-every-booking):
 * booked now, cancelling would cost a fee as soon as the provider accepts. Undefined when every option is still free.
 */
export function cancellationFeeApplies(options: ReadonlyArray<{ terms?: Terms }>, now: number): TripWarning | undefined {
  const paid = options.filter((o) => o.terms !== undefined && cancelPercentAt(o.terms, now) > 0).length;
  if (paid === 0) return undefined;
  return {
    code: "CANCELLATION_FEE_APPLIES",
    message:
      `${paid} option(s) are past their free cancellation: booked now, cancelling costs a fee (terms.cancellation) as soon ` +
      "as the provider accepts",
    count: paid,
  };
}

/** The same terms for a pickup moved by `seconds`: every instant (the tiers', assignBy) moved with it, the rest unchanged. */
export function movedTerms(terms: Terms, seconds: number): Terms {
  if (seconds === 0) return terms;
  const move = (instant: string) => isoAt(Date.parse(instant) / 1000 + seconds);
  return {
    ...terms,
    freeCancellationUntil: terms.freeCancellationUntil === null ? null : move(terms.freeCancellationUntil),
    cancellation: terms.cancellation.map((t) => ({ ...t, until: move(t.until) })),
    ...(terms.assignBy !== undefined ? { assignBy: move(terms.assignBy) } : {}),
  };
}
