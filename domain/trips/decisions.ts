import { createHash } from "node:crypto";
import { ConflictError, ForbiddenError, NotFoundError, ValidationError } from "../errors";
import { isoAt, isProvider, isRequester, roleOf } from "./booking";
import type { Booking, BookingEvent, ExtraFields, Fee, QuoteOption, QuotedOrigin, RecoveryTier, Terms, Trip } from "./booking";
import { pricedDifferences, QUOTE_TIME_TOLERANCE_SECONDS, quoteTripMismatch, repricedFor, type RepricedTrip } from "./quote-binding";
import { assertTransition, CANCELLABLE_STATUSES, type TripActor, type TripStatus } from "./lifecycle";
import type { Decision } from "./decision";
import type { NewTripRequest, TripChanges } from "./send-trip-request";
import type { TripWarning } from "./warnings";
import { canonicalJson } from "../shared/canonical-json";
import { lateCancelFee, movedTerms } from "./terms";
import { acceptByFollowingPickup, offerTerms } from "./offers";
import { linesAfterQuote, sumOfLines } from "./fare-lines";
import { timeWarned } from "./pickup-time";
import { applyChanges, changedKeys, describeMembers, describeTripChanges } from "./trip-changes";
import type { FlightRecord } from "./flights";

export { canonicalJson, canonicalJsonWalk } from "../shared/canonical-json";

/** Who makes a change and when. */
export interface ChangeContext {
  /** Unix seconds. */
  now: number;
  /** The calling company and user. */
  netid: string;
  uid: string;
}

/** The answer of sendTrip. */
export interface SendTripResult {
  transactionId: string;
  status: TripStatus;
  fees: Fee[];
  totalAmount: string | null;
  /** What the booking's request was warned about (empty when nothing). */
  warnings: TripWarning[];
}

/** sendTrip's answer for a booking's current state. */
export function sendTripResult(b: Booking): SendTripResult {
  return { transactionId: b.transactionId, status: b.status, fees: b.trip.fees, totalAmount: b.totalAmount, warnings: b.warnings ?? [] };
}

/** What the use case prepared outside the transaction for a NEW. */
export interface NewTripFacts {
  transactionId: string;
  pickupDate: number;
  /** Vehicle options when the request is a QUOTE. */
  options: QuoteOption[];
  /** The agreed price of a booking made from a network quote's option, and the changeLogs words naming it. */
  price?: { totalAmount: string; described: string; quoted?: QuotedOrigin };
  /** What the request is warned about (kept on a booking it creates). */
  warnings?: TripWarning[];
  /** The terms a booking made now keeps (docs/terms.md#policies): the quoted option's, else the provider's policies now. */
  terms?: Terms;
  /** The provider's own answer time (its `policies.acceptWithinMinutes`): acceptBy is at most this long after the booking. */
  providerAcceptWithinMinutes?: number;
  /** The flight the pickup meets (docs/flights.md#flights), when it names one. */
  flight?: FlightRecord;
  /** The requester's give-back recovery tiers now (docs/settlement.md#give-back-recovery): a booking keeps them. */
  giveBackRecovery?: RecoveryTier[];
  sourcePlatform: string;
  targetPlatform: string;
}

/** 404 for a booking that does not exist or that the caller may not see — the two are indistinguishable. */
export function bookingNotFound(): NotFoundError {
  return new NotFoundError("No booking with this transactionId", "BOOKING_NOT_FOUND");
}

/**
 * The fingerprint of a NEW request's content: equal fingerprints make a repeat idempotent, different ones
 * make it a conflict. Canonical JSON (sorted keys), so key order does not matter.
 */
export function contentFingerprint(req: NewTripRequest, providerId: string): string {
  // Keys in sorted order, so canonicalJson need not copy this object.
  const content = {
    affiliateExtra: req.affiliateExtra,
    notes: req.notes ?? "",
    providerId,
    // A requester never sets the provider's number (its copy is in affiliateExtra); kept so fingerprints stay stable.
    providerResNo: null,
    requesterId: req.requesterId,
    requesterResNo: req.requesterResNo,
    trip: req.trip,
  };
  return createHash("sha256").update(canonicalJson(content)).digest("base64url");
}

/** A changeLogs entry by `actor`, now. */
export function log(ctx: ChangeContext, actor: TripActor, changeDesc: string) {
  return { timestamp: isoAt(ctx.now), changeSource: `${actor}:${ctx.uid}`, changeDesc };
}

/** A booking event for the outbox, stamped with the change's time. */
export function event(b: Booking, type: BookingEvent["type"], actor: TripActor, ctx: ChangeContext, previousStatus?: TripStatus): BookingEvent {
  return { type, transactionId: b.transactionId, actor, at: ctx.now, status: b.status, ...(previousStatus ? { previousStatus } : {}) };
}

/**
 * A NEW arrives for (requesterId, requesterResNo): create the booking or quote; repeat the existing one when
 * the content is the same; convert a quote into a booking when it comes back as REGULAR; else 409.
 */
export function decideNewTrip(
  current: Booking | undefined,
  req: NewTripRequest,
  fingerprint: string,
  facts: NewTripFacts,
  ctx: ChangeContext,
): Decision<SendTripResult> {
  if (!current) return createBooking(req, fingerprint, facts, ctx);
  if (current.contentHash === fingerprint) return { result: sendTripResult(current) };
  if (current.status === "QUOTE" && req.trip.reservationType !== "QUOTE") return convertQuote(current, req, fingerprint, facts, ctx);
  throw new ConflictError(
    `requesterResNo ${req.requesterResNo} is already used by booking ${current.transactionId} with different content; send an UPDATE to change it`,
    "DUPLICATE_RESERVATION",
    {
      transactionId: current.transactionId,
      errors: [{ field: "affiliateReservation.requesterResNo", message: "is already used by a booking with different content" }],
    },
  );
}

function createBooking(req: NewTripRequest, fingerprint: string, facts: NewTripFacts, ctx: ChangeContext): Decision<SendTripResult> {
  const isQuote = req.trip.reservationType === "QUOTE";
  const status: TripStatus = isQuote ? "QUOTE" : "BOOKING_REQUEST";
  const trip: Trip = isQuote ? { ...req.trip, fees: facts.options } : req.trip;
  const booking: Booking = {
    transactionId: facts.transactionId,
    requesterId: ctx.netid,
    requesterResNo: req.requesterResNo,
    providerId: req.providerId,
    providerResNo: null,
    status,
    userid: ctx.uid,
    sourcePlatform: facts.sourcePlatform,
    targetPlatform: facts.targetPlatform,
    submitDate: ctx.now,
    pickupDate: facts.pickupDate,
    updatedAt: ctx.now,
    totalAmount: isQuote ? (facts.options[0]?.fee ?? null) : (facts.price?.totalAmount ?? null),
    quoteValidUntil: isQuote ? ctx.now + 24 * 3600 : null,
    contentHash: fingerprint,
    action: "NEW",
    notes: req.notes ?? "",
    ...(req.affiliateExtra ? { affiliateExtra: req.affiliateExtra } : {}),
    ...(req.sentSubmitMode ? { submitMode: req.sentSubmitMode } : {}),
    ...(facts.warnings?.length ? { warnings: facts.warnings } : {}),
    // The quoted lines are fixed from now on (docs/terms.md#the-price-is-the-sum-of-its-lines).
    ...(facts.price?.quoted ? { quoted: { ...facts.price.quoted, lines: trip.fees.length } } : {}),
    ...(!isQuote && facts.terms ? { terms: facts.terms } : {}),
    ...(facts.flight ? { flight: facts.flight } : {}),
    ...(!isQuote && facts.giveBackRecovery ? { giveBackRecovery: facts.giveBackRecovery } : {}),
    ...(isQuote ? {} : offerTerms(req, ctx.now, facts.pickupDate, facts.price?.totalAmount ?? null, trip, facts.providerAcceptWithinMinutes, facts.terms)),
    trip,
    changeLogs: [
      log(
        ctx,
        "requester",
        isQuote
          ? `quote requested from ${req.providerId}: ${facts.options.length} vehicle option(s)`
          : `trip sent to ${req.providerId}: status ${status}${facts.price ? ` (${facts.price.described})` : ""}`,
      ),
    ],
    transactionErrors: [],
  };
  return { result: sendTripResult(booking), write: { booking, events: [event(booking, isQuote ? "QUOTE_REQUESTED" : "TRIP_SENT", "requester", ctx)] } };
}

function convertQuote(quote: Booking, req: NewTripRequest, fingerprint: string, facts: NewTripFacts, ctx: ChangeContext): Decision<SendTripResult> {
  if (quote.quoteValidUntil !== null && ctx.now > quote.quoteValidUntil)
    throw new ConflictError(`The quote expired at ${isoAt(quote.quoteValidUntil)}; request a new quote`, "QUOTE_EXPIRED", {
      transactionId: quote.transactionId,
      validUntil: isoAt(quote.quoteValidUntil),
    });
  assertTransition(quote.status, "BOOKING_REQUEST", "requester");
  // The price holds for the quoted trip only (docs/integration.md#the-price-is-bound-to-the-trip): another place, party, duration or extras is 409.
  const mismatch = pricedDifferences(quote.trip, req.trip, {
    toleranceSeconds: QUOTE_TIME_TOLERANCE_SECONDS,
    quotedAt: quote.pickupDate,
    askedAt: facts.pickupDate,
  });
  if (mismatch.length > 0) throw quoteTripMismatch(mismatch, { transactionId: quote.transactionId });
  const code = req.trip.fees[0]?.code;
  const { fees, totalAmount, chosen } = quotedPrice(quote, code);
  // The booking keeps the terms the option was quoted with; its fee line is the option without them.
  const terms = (chosen?.terms as Terms | undefined) ?? facts.terms;
  const trip: Trip = { ...req.trip, fees: fees.map(({ terms: _, ...line }) => line) };
  const described = describeTripChanges(quote.trip, trip);
  const booking: Booking = {
    ...quote,
    status: "BOOKING_REQUEST",
    updatedAt: ctx.now,
    pickupDate: facts.pickupDate,
    totalAmount,
    quoteValidUntil: null,
    contentHash: fingerprint,
    action: "NEW",
    notes: req.notes ?? quote.notes,
    affiliateExtra: req.affiliateExtra ?? quote.affiliateExtra,
    quoted: { ...(chosen?.code ? { code: chosen.code } : {}), lines: trip.fees.length },
    ...(terms ? { terms } : {}),
    ...(facts.flight ? { flight: facts.flight } : {}),
    ...(facts.giveBackRecovery ? { giveBackRecovery: facts.giveBackRecovery } : {}),
    ...offerTerms(req, ctx.now, facts.pickupDate, totalAmount, trip, facts.providerAcceptWithinMinutes, terms),
    trip,
    changeLogs: [
      ...quote.changeLogs,
      log(
        ctx,
        "requester",
        `status QUOTE → BOOKING_REQUEST (quote converted into a booking${
          chosen ? `, ${code ? "" : "first "}option ${chosen.code} at ${chosen.fee} ${chosen.currency ?? ""}`.trimEnd() : ""
        })`,
      ),
      ...described.filter((d) => !d.startsWith("fees") && !d.startsWith("reservationType")).map((d) => log(ctx, "requester", d)),
    ],
  };
  return { result: sendTripResult(booking), write: { booking, events: [event(booking, "TRIP_SENT", "requester", ctx, "QUOTE")] } };
}

/**
 * The price a quote's conversion books: the option named by `code` (400 naming `fees[0].code` when the quote has
 * none by that code), else the quote's first option — the price the traveller was shown. A quote a partner priced
 * with fee lines that are not vehicle options (no codes) keeps its lines and total as they are.
 */
export function quotedPrice(quote: Booking, code: string | undefined): { fees: Fee[]; totalAmount: string | null; chosen?: Fee } {
  const options = quote.trip.fees;
  if (code) {
    const chosen = options.find((o) => o.code === code);
    if (!chosen) throw new ValidationError([{ field: "fees[0].code", message: "is not one of the quote's vehicle options" }]);
    return { fees: [chosen], totalAmount: chosen.fee ?? quote.totalAmount, chosen };
  }
  const areOptions = options.length > 0 && options.every((o) => typeof o.code === "string" && o.code !== "");
  if (!areOptions) return { fees: options, totalAmount: quote.totalAmount };
  return { fees: [options[0]], totalAmount: options[0].fee ?? quote.totalAmount, chosen: options[0] };
}

/** The caller's view of a booking it wants to change: 404 when it is not a party, 403 when it has the wrong role. */
export function requireRole(current: Booking | undefined, netid: string, role: TripActor): Booking {
  if (!current || !roleOf(current, netid)) throw bookingNotFound();
  const ok = role === "provider" ? isProvider(current, netid) : isRequester(current, netid);
  if (!ok) throw new ForbiddenError(`Only the ${role} of this booking may do this`, role === "provider" ? "PROVIDER_ONLY" : "REQUESTER_ONLY");
  return current;
}

/**
 * The requester changes trip details (action UPDATE). Quotes are not updated: request a new one. `timeWarnings`: those
 * of the pickup time the UPDATE sends (PICKUP_TIME_ADJUSTED or none), replacing the stored ones.
 */
export function decideUpdateTrip(
  current: Booking | undefined,
  changes: TripChanges,
  extra: {
    providerId?: string;
    notes?: string;
    pickupDate?: number;
    timeWarnings?: TripWarning[];
    affiliateExtra?: ExtraFields;
    price?: RepricedTrip;
    /** The pickup's flight as the UPDATE sends it (null: none); undefined when it sends no pickup. */
    flight?: FlightRecord | null;
  },
  ctx: ChangeContext,
): Decision<SendTripResult> {
  const b = requireRole(current, ctx.netid, "requester");
  // After a cascade move (docs/terms.md#the-cascade-fallback) the requester may still name a provider the booking was offered to: it means
  // the booking's current provider, to which the UPDATE goes.
  const named = extra.providerId?.toLowerCase();
  if (named && named !== b.providerId.toLowerCase() && !b.offers?.some((o) => o.provider.toLowerCase() === named))
    throw new ValidationError([{ field: "affiliateReservation.providerId", message: "cannot change on UPDATE; cancel and send a new trip" }]);
  if (b.status === "QUOTE") throw new ConflictError("A quote cannot be updated; request a new quote or resubmit it as REGULAR", "QUOTE_NOT_UPDATABLE");
  if (!CANCELLABLE_STATUSES.has(b.status))
    throw new ConflictError(`A booking in status ${b.status} can no longer be updated`, "NOT_UPDATABLE", { status: b.status });

  // After a quote's conversion the fee lines are the provider's: a requester's are kept as its own extra member.
  const { fees: requesterFees, ...others } = changes;
  const sent = b.quoted && requesterFees !== undefined ? { ...others, extra: { ...others.extra, fees: requesterFees } } : changes;
  let trip = applyChanges(b.trip, sent);
  const repriced = b.quoted?.code ? repricedFor(b, trip, extra.pickupDate, extra.price) : undefined;
  // A re-priced trip's option replaces the quoted lines; lines the provider added since stay, summed in the total.
  const added = repriced ? linesAfterQuote(b) : [];
  if (repriced) trip = { ...trip, fees: [...repriced.fees, ...added] };
  const descriptions = describeTripChanges(b.trip, trip);
  if (repriced) descriptions.push(repriced.described);
  const notes = extra.notes ?? b.notes;
  if (notes !== b.notes) descriptions.push("notes changed");
  const affiliateExtra = extra.affiliateExtra ? { ...b.affiliateExtra, ...extra.affiliateExtra } : b.affiliateExtra;
  descriptions.push(...describeMembers("affiliateReservation.", changedKeys(b.affiliateExtra, affiliateExtra)));
  if (descriptions.length === 0) return { result: sendTripResult(b) };
  // A pickup the requester changes sets its flight anew (docs/flights.md#flights); one sent as it was keeps its moves.
  const { flight: _flight, ...unflown } = b;
  const pickupChanged = canonicalJson(b.trip.locations.pickup) !== canonicalJson(trip.locations.pickup);
  const base: Booking = pickupChanged && extra.flight !== undefined ? { ...unflown, ...(extra.flight ? { flight: extra.flight } : {}) } : b;
  const updated: Booking = {
    ...base,
    trip,
    notes,
    ...(affiliateExtra ? { affiliateExtra } : {}),
    action: "UPDATE",
    updatedAt: ctx.now,
    ...(repriced ? { totalAmount: sumOfLines(trip.fees) ?? repriced.totalAmount, quoted: { ...b.quoted, lines: repriced.fees.length } } : {}),
    pickupDate: extra.pickupDate ?? b.pickupDate,
    ...(extra.timeWarnings ? timeWarned(b.warnings, extra.timeWarnings) : {}),
    // The terms stay the booking's, counted from the pickup: a moved pickup moves their instants with it.
    ...(b.terms && extra.pickupDate !== undefined ? { terms: movedTerms(b.terms, extra.pickupDate - b.pickupDate) } : {}),
    changeLogs: [...b.changeLogs, ...descriptions.map((d) => log(ctx, "requester", d))],
  };
  // An earlier pickup pulls an unaccepted offer's deadline in with it (docs/terms.md#a-moved-pickup-pulls-acceptby-in).
  const booking = acceptByFollowingPickup(b, updated, ctx.now);
  // A moved trip moves its vehicle hold in the same transaction (docs/availability.md#an-update-moves-the-hold), or 409.
  const hold = repriced?.hold ? { hold: repriced.hold } : {};
  return { result: sendTripResult(booking), write: { booking, events: [event(booking, "TRIP_UPDATED", "requester", ctx)], ...hold } };
}

/** The requester cancels (cancelTrip or action CANCEL): allowed from any state before the passenger is on board. */
export function decideCancelTrip(current: Booking | undefined, notes: string | undefined, ctx: ChangeContext): Decision<SendTripResult> {
  const b = requireRole(current, ctx.netid, "requester");
  assertTransition(b.status, "CANCEL", "requester");
  // After the free window the terms charge a fee (docs/terms.md#the-cancellation-fee): a fee line, and the total becomes it.
  const { charged, said } = lateCancelFee(b, ctx.now);
  const booking: Booking = {
    ...b,
    ...charged,
    status: "CANCEL",
    action: "CANCEL",
    notes: notes ?? b.notes,
    updatedAt: ctx.now,
    changeLogs: [...b.changeLogs, log(ctx, "requester", `status ${b.status} → CANCEL${said}`)],
  };
  return { result: sendTripResult(booking), write: { booking, events: [event(booking, "TRIP_CANCELLED", "requester", ctx, b.status)] } };
}
