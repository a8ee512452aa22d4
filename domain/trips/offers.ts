import { isoAt, type Booking, type BookingEvent, type BookingMove, type ChangeLog, type Fee, type Offer, type QuotedOrigin, type Terms } from "./booking";
import type { BookingWrite, Decision } from "./decision";
import type { TripStatus } from "./lifecycle";
import { ConflictError } from "../errors";
import { canonicalJson } from "../shared/canonical-json";

/**
 * Acceptance deadlines and the cascade (docs/terms.md#the-acceptance-deadline-acceptby,
 * docs/terms.md#the-cascade-fallback, docs/terms.md#deadlines-within-the-trip), pure: when a NEW booking's provider
 * must accept by, when the offer watch must act on a booking, and what it does then — move the booking to the next
 * option of its network quote, or end it as REJECT with a reason. The watch (domain/usecases/offer-watch.ts) finds the
 * due bookings and the next option; the decision here runs inside the booking's transaction, so a move is written at
 * once or not at all.
 */

/** acceptWithinMinutes bounds (docs/terms.md#the-acceptance-deadline-acceptby). */
export const MIN_ACCEPT_MINUTES = 1;
export const MAX_ACCEPT_MINUTES = 1440;
/** Re-offers one booking makes at most (docs/terms.md#the-cascade-fallback). */
export const MAX_REOFFERS = 5;
/** Why an offer ended, as `offers[].reason` and `booking.reassigned`'s reason say it. */
export type OfferEndReason = "ACCEPT_TIMEOUT" | "PROVIDER_REJECTED" | "DELIVERY_FAILED" | "PROVIDER_GAVE_BACK";
/** No offer is made later than this before the pickup (docs/terms.md#deadlines-within-the-trip). */
export const LAST_OFFER_BEFORE_PICKUP_SECONDS = 30 * 60;
/** A provider always has at least this long to answer, unless the requester asked sooner. */
export const MIN_ANSWER_SECONDS = 5 * 60;
/** The reason a lapsed provider's CANCEL carries (docs/terms.md#who-sees-what). */
export const OFFER_LAPSED = "OFFER_LAPSED";
/** Why the exchange ended a booking (`reason` of the booking). */
export const ACCEPT_TIMEOUT = "ACCEPT_TIMEOUT";
export const NO_PROVIDER_ACCEPTED = "NO_PROVIDER_ACCEPTED";

/** Statuses in which the provider has not accepted yet: the offer lapses at acceptBy (and its vehicle hold with it). */
export const UNACCEPTED_STATUSES = ["BOOKING_REQUEST", "PENDING"] as const satisfies readonly TripStatus[];
export const AWAITING: ReadonlySet<TripStatus> = new Set(UNACCEPTED_STATUSES);

/** Whether a changeLogs line is the exchange's note of a move (docs/terms.md#provider-record reads each offer's lines by it). */
export function isMoveLine(line: Pick<ChangeLog, "changeSource" | "changeDesc">): boolean {
  return line.changeSource === "exchange" && typeof line.changeDesc === "string" && line.changeDesc.startsWith(MOVE_LINE);
}

/**
 * Until when the provider of a new offer may accept (Unix seconds; docs/terms.md#deadlines-within-the-trip): by the
 * pickup's lead time — within 24 h, 30 min after the offer; within 48 h, 4 h; within 72 h, 12 h; else 24 h — or sooner
 * when the requester asked (`withinMinutes`) or the provider's own policy answers sooner (`providerMinutes`,
 * docs/terms.md#policies), and never later than 30 min before the pickup. An offer made later than 35 min before the
 * pickup (or just after it, as a NEW may be) gets 5 min, unless `withinMinutes` asks sooner.
 */
export function acceptByFor(now: number, pickupDate: number, withinMinutes?: number, providerMinutes?: number): number {
  const lead = pickupDate - now;
  let window = lead <= 24 * 3600 ? 30 * 60 : lead <= 48 * 3600 ? 4 * 3600 : lead <= 72 * 3600 ? 12 * 3600 : 24 * 3600;
  if (withinMinutes !== undefined) window = Math.min(window, withinMinutes * 60);
  if (providerMinutes !== undefined) window = Math.min(window, providerMinutes * 60);
  const latest = lastOfferAt(pickupDate);
  if (latest - now < MIN_ANSWER_SECONDS) return now + Math.min(window, MIN_ANSWER_SECONDS);
  return Math.min(now + window, latest);
}

/**
 * The booking `moved` (its pickup moved from `before`'s, at `now`) with its acceptance deadline kept within the trip
 * (docs/terms.md#a-moved-pickup-pulls-acceptby-in): while the provider has not accepted, acceptBy becomes
 * min(acceptBy, max(new pickup − 30 min, now + 5 min)) — never later than promised, never sooner than 5 min from the
 * move — with an exchange's changeLogs line when it moves; `moved` as it is otherwise.
 */
export function acceptByFollowingPickup(before: Booking, moved: Booking, now: number): Booking {
  const was = before.acceptBy;
  if (was === undefined || !AWAITING.has(before.status) || moved.pickupDate >= before.pickupDate) return moved;
  const acceptBy = Math.min(was, Math.max(lastOfferAt(moved.pickupDate), now + MIN_ANSWER_SECONDS));
  if (acceptBy === was) return moved;
  const changeDesc = `acceptBy moved from ${isoAt(was)} to ${isoAt(acceptBy)}: the pickup moved to ${isoAt(moved.pickupDate)}`;
  return { ...moved, acceptBy, changeLogs: [...moved.changeLogs, { timestamp: isoAt(now), changeSource: "exchange", changeDesc }] };
}

/** The last moment (Unix seconds) an offer of a trip picked up at `pickupDate` may be made: 30 min before it. */
export function lastOfferAt(pickupDate: number): number {
  return pickupDate - LAST_OFFER_BEFORE_PICKUP_SECONDS;
}

/** When the offer watch must next act on the booking (Unix seconds), or null: what the `offer_due` column stores. */
export function offerDue(b: Booking): number | null {
  if (b.acceptBy === undefined || b.trip.reservationType === "QUOTE") return null;
  if (AWAITING.has(b.status)) return b.acceptBy;
  // A REJECT or FAILED that moves the booking on is due at once, whoever's clock recorded it.
  return moveCause(b, Number.POSITIVE_INFINITY) ? 0 : null;
}

/** Why the booking's current offer ends now, when it does. */
export function moveCause(b: Booking, now: number): OfferEndReason | undefined {
  if (b.acceptBy === undefined || b.reason !== undefined) return undefined;
  if (AWAITING.has(b.status) && b.acceptBy <= now) return "ACCEPT_TIMEOUT";
  if (!b.fallback) return undefined;
  // A REJECT without the exchange's reason is the provider's own.
  if (b.status === "REJECT") return "PROVIDER_REJECTED";
  if (b.status === "FAILED") return "DELIVERY_FAILED";
  // The provider's own CANCEL (docs/terms.md#give-back): a decline before it accepted, a give-back after.
  if (b.status === "CANCEL" && b.providerCancelled !== undefined)
    return b.providerCancelled === "AFTER_ACCEPTANCE" ? "PROVIDER_GAVE_BACK" : "PROVIDER_REJECTED";
  return undefined;
}

/** Statuses a provider may still move an unaccepted booking to once its offer lapsed: none of them accepts it. */
const NOT_ACCEPTING: ReadonlySet<TripStatus> = new Set([...UNACCEPTED_STATUSES, "REJECT", "FAILED", "CANCEL"]);

/**
 * 409 OFFER_LAPSED when a provider would accept (CONFIRMED or a later status) a booking whose acceptBy has passed
 * (docs/terms.md#the-acceptance-deadline-acceptby): the offer lapsed, and the vehicle it held was free again from then
 * on (docs/availability.md#until-acceptance-holds-lapse-at-acceptby). Undefined when the move is allowed.
 */
export function lapsedAcceptance(b: Booking, to: TripStatus, now: number): ConflictError | undefined {
  if (b.acceptBy === undefined || !AWAITING.has(b.status) || b.acceptBy > now || NOT_ACCEPTING.has(to)) return undefined;
  return new ConflictError(
    `The offer lapsed at ${isoAt(b.acceptBy)} (acceptBy) without your acceptance: it can no longer be accepted`,
    "OFFER_LAPSED",
    { acceptBy: isoAt(b.acceptBy) },
  );
}

/**
 * What a provider's CANCEL from `from` is (docs/terms.md#give-back): before it accepted, a decline; after, a give-back.
 * A give-back of a booking without a fallback ends it CANCEL: the seam where a recovery the provider owes will hook.
 */
export function providerCancelOf(from: TripStatus): NonNullable<Booking["providerCancelled"]> {
  return AWAITING.has(from) || from === "FAILED" ? "BEFORE_ACCEPTANCE" : "AFTER_ACCEPTANCE";
}

/** Whether the booking ended because its provider gave it back after accepting it (docs/terms.md#give-back). */
export function isGiveBack(b: Pick<Booking, "status" | "providerCancelled">): boolean {
  return b.status === "CANCEL" && b.providerCancelled === "AFTER_ACCEPTANCE";
}

/** Moves made so far (offers after the first). */
export function movesMade(b: Booking): number {
  return Math.max(0, (b.offers?.length ?? 1) - 1);
}

/**
 * Whether the booking may still be moved on at `now`: it has a fallback, fewer than MAX_REOFFERS moves, and the pickup is
 * at least 30 min away (docs/terms.md#deadlines-within-the-trip).
 */
export function mayMove(b: Booking, now: number): boolean {
  return b.fallback !== undefined && b.quoted?.quoteId !== undefined && movesMade(b) < MAX_REOFFERS && now <= lastOfferAt(b.pickupDate);
}

/** The first offer of a new booking, with the terms it was made under. */
export function firstOffer(b: Pick<Booking, "providerId" | "totalAmount" | "trip" | "status" | "terms">, now: number): Offer {
  const vehType = b.trip.fees[0]?.vehType;
  return {
    provider: b.providerId,
    fee: b.totalAmount,
    currency: b.trip.fees[0]?.currency ?? null,
    status: b.status,
    at: isoAt(now),
    ...(b.terms !== undefined ? { terms: b.terms } : {}),
    ...(vehType !== undefined ? { vehType } : {}),
  };
}

/**
 * A new booking's acceptance deadline, cascade cap and first offer (docs/terms.md#the-acceptance-deadline-acceptby,
 * docs/terms.md#the-cascade-fallback); `providerMinutes` is the provider's own answer time, when it set one.
 */
export function offerTerms(
  req: { providerId: string; acceptWithinMinutes?: number; fallback?: Booking["fallback"] },
  now: number,
  pickupDate: number,
  totalAmount: string | null,
  trip: Booking["trip"],
  providerMinutes?: number,
  terms?: Terms,
): Pick<Booking, "acceptBy" | "acceptWithinMinutes" | "fallback" | "offers"> {
  return {
    acceptBy: acceptByFor(now, pickupDate, req.acceptWithinMinutes, providerMinutes),
    ...(req.acceptWithinMinutes !== undefined ? { acceptWithinMinutes: req.acceptWithinMinutes } : {}),
    ...(req.fallback ? { fallback: req.fallback } : {}),
    offers: [firstOffer({ providerId: req.providerId, totalAmount, trip, status: "BOOKING_REQUEST", terms }, now)],
  };
}

/**
 * The next option the watch found for a booking: another provider's vehicle, free when looked at; `hold` is the claim
 * the move writes in its own transaction (the booking's hold swapped for it, or the move fails: VEHICLE_UNAVAILABLE).
 */
export interface NextOffer {
  provider: string;
  code: string;
  fee: string;
  currency: string;
  /** The booking's fee lines for it (the option's line). */
  fees: Fee[];
  /** The option's fee as the quote showed it converted (docs/fx.md#what-a-network-quote-shows): the booking's `convertedAmount` from the move on. */
  converted?: QuotedOrigin["converted"];
  /** The next provider's own answer time (its `policies.acceptWithinMinutes`), when it set one. */
  acceptWithinMinutes?: number;
  /** The terms the next provider's policies give the trip at the move (docs/terms.md#each-provider-its-own-terms). */
  terms?: Terms;
  /** The option's vehicle type. */
  vehType?: string;
  hold?: BookingWrite["hold"];
}

/** What the watch did to one booking. */
export type OfferOutcome = { kind: "none" } | { kind: "moved"; from: string; to: string; reason: OfferEndReason } | { kind: "ended"; reason: string };


/** The offer that just ended, as the offers history keeps it: its status and reason, and what its provider's read shows. */
function endedOffer(b: Booking, last: Offer, cause: OfferEndReason, now: number): Offer {
  const status = cause === "ACCEPT_TIMEOUT" ? "CANCEL" : b.status;
  return { ...last, status, reason: cause, ended: { resNo: b.providerResNo, fees: b.trip.fees, acceptBy: b.acceptBy, at: now } };
}

/** What the requester learns of a move (docs/terms.md#each-provider-its-own-terms): the price before and after, and whether the terms changed. */
function moveFacts(b: Booking, next: NextOffer, cause: OfferEndReason): BookingMove {
  const fromCurrency = b.trip.fees[0]?.currency ?? b.offers?.at(-1)?.currency ?? next.currency;
  return {
    from: b.providerId,
    to: next.provider,
    reason: cause,
    priceChange: { from: b.totalAmount, to: next.fee, currency: next.currency, ...(fromCurrency !== next.currency ? { fromCurrency } : {}) },
    termsChanged: canonicalJson(b.terms ?? null) !== canonicalJson(next.terms ?? null),
  };
}

/**
 * What the offer watch does to a due booking, inside its transaction: nothing when it is not due any more (the
 * provider accepted meanwhile, another instance acted); else the provider whose offer ended is told
 * (`booking.withdrawn`; CANCEL to one that lapsed or could not be reached, not to one that REJECTed or cancelled), and
 * the booking moves to `next` — same transactionId and requesterResNo, a plain NEW to the next provider under its own
 * terms — or, with no next option or 30 min or less before the pickup, becomes REJECT with reason ACCEPT_TIMEOUT (no
 * fallback) or NO_PROVIDER_ACCEPTED.
 */
export function decideOfferDue(current: Booking | undefined, now: number, next: NextOffer | undefined): Decision<OfferOutcome> {
  const b = current;
  const cause = b ? moveCause(b, now) : undefined;
  if (!b || !cause) return { result: { kind: "none" } };
  const at = isoAt(now);
  const offers = [...(b.offers ?? [firstOffer(b, now)])];
  offers[offers.length - 1] = endedOffer(b, offers[offers.length - 1], cause, now);
  const cancel = cause === "ACCEPT_TIMEOUT" || cause === "DELIVERY_FAILED";
  const withdrawn: BookingEvent = {
    type: "OFFER_WITHDRAWN",
    transactionId: b.transactionId,
    actor: "requester",
    at: now,
    status: "CANCEL",
    formerProvider: { netid: b.providerId, reason: cause, cancel },
    byExchange: true,
  };
  const lines: ChangeLog[] = [...b.changeLogs];
  const note = (changeDesc: string) => lines.push({ timestamp: at, changeSource: "exchange", changeDesc });
  if (next && mayMove(b, now) && next.provider.toLowerCase() !== b.providerId.toLowerCase()) {
    note(`${MOVE_LINE}${b.providerId} to ${next.provider} (${cause}): option ${next.code} at ${next.fee} ${next.currency}`);
    const { deliveryFailure: _f, vehicle: _v, chauffeur: _c, providerNote: _n, providerUpdate: _u, providerCancelled: _p, terms: _t, ...kept } = b;
    const offer: Offer = {
      provider: next.provider,
      fee: next.fee,
      currency: next.currency,
      status: "BOOKING_REQUEST",
      at,
      ...(next.terms ? { terms: next.terms } : {}),
      ...(next.vehType !== undefined ? { vehType: next.vehType } : {}),
    };
    const booking: Booking = {
      ...kept,
      providerId: next.provider,
      providerResNo: null,
      status: "BOOKING_REQUEST",
      action: "NEW",
      updatedAt: now,
      totalAmount: next.fee,
      trip: { ...b.trip, fees: next.fees },
      quoted: { quoteId: b.quoted?.quoteId, code: next.code, ...(next.converted ? { converted: next.converted } : {}), lines: next.fees.length },
      // The next provider is held to its own terms, not the last one's (docs/terms.md#each-provider-its-own-terms).
      ...(next.terms ? { terms: next.terms } : {}),
      acceptBy: acceptByFor(now, b.pickupDate, b.acceptWithinMinutes, next.acceptWithinMinutes),
      offers: [...offers, offer],
      changeLogs: lines,
    };
    const move = moveFacts(b, next, cause);
    const events: BookingEvent[] = [
      { type: "REASSIGNED", transactionId: b.transactionId, actor: "requester", at: now, status: "BOOKING_REQUEST", previousStatus: b.status, move,
        byExchange: true },
      withdrawn,
      { type: "TRIP_SENT", transactionId: b.transactionId, actor: "requester", at: now, status: "BOOKING_REQUEST", byExchange: true },
    ];
    return { result: { kind: "moved", from: move.from, to: move.to, reason: cause }, write: { booking, events, ...(next.hold ? { hold: next.hold } : {}) } };
  }
  const reason = b.fallback ? NO_PROVIDER_ACCEPTED : ACCEPT_TIMEOUT;
  note(`status ${b.status} → REJECT (${reason}${cause !== reason ? `, after ${cause}` : ""})`);
  const booking: Booking = { ...b, status: "REJECT", reason, updatedAt: now, offers, changeLogs: lines };
  const events: BookingEvent[] = [
    { type: "STATUS_CHANGED", transactionId: b.transactionId, actor: "provider", at: now, status: "REJECT", previousStatus: b.status, byExchange: true },
    withdrawn,
  ];
  return { result: { kind: "ended", reason }, write: { booking, events } };
}

/**
 * How a move's changeLogs line begins: the line that separates one provider's offer from the next one's (the
 * provider record reads each offer's lines by it).
 */
export const MOVE_LINE = "offer moved from ";
