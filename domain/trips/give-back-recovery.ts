import type { FieldError } from "../errors";
import type { Booking, CostRecovery, CostRecoveryRecord, RecoveryTier } from "./booking";
import { cancellableFare } from "./fare-lines";
import { currencyOfFees } from "./booking-amounts";
import { percentOf } from "./terms";

/**
 * Give-back recovery tiers (docs/settlement.md#give-back-recovery), pure: a requester's integration setting
 * `giveBackRecovery` says what share of the fare a provider owes it when the provider gives a booking back after
 * accepting it, by how long before the pickup it does.
 */

/** The default: nothing until 24 h before the pickup, half the fare until 2 h before, then all of it. */
export const DEFAULT_GIVE_BACK_RECOVERY: readonly RecoveryTier[] = [
  { beforeMinutes: 1440, percent: 0 },
  { beforeMinutes: 120, percent: 50 },
  { beforeMinutes: 0, percent: 100 },
];
export const MAX_RECOVERY_TIERS = 10;
/** A tier reaches at most 30 days before the pickup. */
export const MAX_RECOVERY_BEFORE_MINUTES = 43_200;

const FIELD = "giveBackRecovery";
const TIER_MEMBERS = ["beforeMinutes", "percent"];
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const wholeIn = (v: unknown, min: number, max: number): v is number => typeof v === "number" && Number.isInteger(v) && v >= min && v <= max;

/** The tiers a requester's setting gives (the default when it set none), latest-before-the-pickup last. */
export function recoveryTiersOf(setting: readonly RecoveryTier[] | undefined): RecoveryTier[] {
  return (setting ?? DEFAULT_GIVE_BACK_RECOVERY).map((t) => ({ ...t }));
}

/**
 * A `giveBackRecovery` setting checked: 1 to 10 tiers `{beforeMinutes, percent}` — whole minutes from 0 to 43,200,
 * each tier's different, and a whole percent from 0 to 100 — sorted from the earliest tier to the last. null resets
 * it to the default. Every failing field is named (`giveBackRecovery[1].percent`); undefined when one fails.
 */
export function checkGiveBackRecovery(input: unknown, errors: FieldError[]): RecoveryTier[] | null | undefined {
  if (input === null) return null;
  if (!Array.isArray(input) || input.length === 0 || input.length > MAX_RECOVERY_TIERS) {
    errors.push({ field: FIELD, message: `must list 1 to ${MAX_RECOVERY_TIERS} tiers {beforeMinutes, percent}, or be null (the default)` });
    return undefined;
  }
  const before = errors.length;
  const seen = new Set<number>();
  const tiers: RecoveryTier[] = [];
  input.forEach((tier, i) => {
    const at = `${FIELD}[${i}]`;
    if (!isObject(tier)) return errors.push({ field: at, message: "must be an object {beforeMinutes, percent}" });
    for (const key of Object.keys(tier))
      if (!TIER_MEMBERS.includes(key)) errors.push({ field: `${at}.${key}`, message: "is not a member of a tier (beforeMinutes, percent)" });
    const { beforeMinutes, percent } = tier;
    if (!wholeIn(beforeMinutes, 0, MAX_RECOVERY_BEFORE_MINUTES))
      errors.push({ field: `${at}.beforeMinutes`, message: `must be a whole number of minutes from 0 to ${MAX_RECOVERY_BEFORE_MINUTES}` });
    else if (seen.has(beforeMinutes)) errors.push({ field: `${at}.beforeMinutes`, message: "must differ from every other tier's" });
    else seen.add(beforeMinutes);
    if (!wholeIn(percent, 0, 100)) errors.push({ field: `${at}.percent`, message: "must be a whole number from 0 to 100" });
    if (wholeIn(beforeMinutes, 0, MAX_RECOVERY_BEFORE_MINUTES) && wholeIn(percent, 0, 100)) tiers.push({ beforeMinutes, percent });
  });
  if (errors.length > before) return undefined;
  return tiers.sort((a, b) => b.beforeMinutes - a.beforeMinutes);
}

/**
 * The percent of the fare a give-back at `now` owes (Unix seconds; pickup at `pickupDate`), read as cancellation
 * tiers are: a give-back until `beforeMinutes` before the pickup owes `percent` — the tier with the largest
 * `beforeMinutes` not above the minutes left — and at or after the pickup the last tier's.
 */
export function recoveryPercentAt(tiers: readonly RecoveryTier[], pickupDate: number, now: number): number {
  if (tiers.length === 0) return 0;
  const sorted = [...tiers].sort((a, b) => b.beforeMinutes - a.beforeMinutes);
  const minutesLeft = (pickupDate - now) / 60;
  for (const tier of sorted) if (minutesLeft >= tier.beforeMinutes) return tier.percent;
  return sorted[sorted.length - 1].percent;
}

/** A flight that moved the pickup by more than this (minutes) waives the recovery. */
export const FLIGHT_WAIVER_MINUTES = 60;
/** Why a recovery is waived. */
export const FLIGHT_MOVED_PICKUP = "FLIGHT_MOVED_PICKUP";

/** How far (minutes) a flight moved the booking's pickup, when one did: the flight condition of the waiver. */
export type FlightMove = (b: Booking) => number | undefined;
/** No flight moved the pickup (a give-back is priced in full); a provider's CANCEL asks the booking's flight record instead. */
export const NO_FLIGHT_MOVE: FlightMove = () => undefined;

/** Why a give-back owes nothing after all, or undefined: a flight moved the pickup by more than 60 minutes. */
export function recoveryWaiver(b: Booking, flightMove: FlightMove): string | undefined {
  const moved = flightMove(b);
  return moved !== undefined && Math.abs(moved) > FLIGHT_WAIVER_MINUTES ? FLIGHT_MOVED_PICKUP : undefined;
}

/**
 * The COST_RECOVERY a provider's give-back at `now` owes the requester (docs/settlement.md#give-back-recovery): the
 * booking's tier's percent of its quoted fare (never lines added later), rounded half up to the currency's minor
 * unit; waived when `flightMove` says a flight moved the pickup by more than 60 minutes. Undefined without a price.
 */
export function costRecoveryFor(b: Booking, now: number, flightMove: FlightMove): CostRecovery | undefined {
  const fare = cancellableFare(b);
  if (fare === null) return undefined;
  const percent = recoveryPercentAt(recoveryTiersOf(b.giveBackRecovery), b.pickupDate, now);
  const waived = recoveryWaiver(b, flightMove);
  return {
    kind: "COST_RECOVERY",
    owedBy: b.providerId,
    owedTo: b.requesterId,
    percent,
    amount: percentOf(fare, percent),
    currency: currencyOfFees(b.trip.fees) ?? null,
    fare,
    at: now,
    ...(waived ? { waived } : {}),
  };
}

/** The row statements read a booking's recovery from, in whole minor units ("75.00" → 7500). */
export function recoveryRecordOf(b: Booking, r: CostRecovery): CostRecoveryRecord {
  return {
    transactionId: b.transactionId,
    requesterId: r.owedTo,
    providerId: r.owedBy,
    amountMinor: Number(r.amount.replace(".", "")),
    currency: r.currency ?? "",
    percent: r.percent,
    pickupDate: b.pickupDate,
    recordedAt: r.at,
    waived: r.waived !== undefined,
  };
}
