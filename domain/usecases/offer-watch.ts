import type { AirportDirectory } from "../airports";
import { ConflictError } from "../errors";
import type { Clock } from "../ports";
import { isoAt, type Booking } from "../trips/booking";
import { decideOfferDue, mayMove, moveCause, type NextOffer, type OfferOutcome } from "../trips/offers";
import type { BookingRepository, OfferDeadlines } from "../trips/ports";
import { positionOf } from "../trips/places";
import { stopPositions } from "../trips/trip-length";
import { placeRoute, routePositions, type RoutePlacingDeps } from "../trips/drop-off-place";
import { quoteQuarterHours } from "../pricing/quote";
import { DEFAULT_TURNAROUND_MINUTES, holdSpan, type HoldIndex } from "../fleet/holds";
import type { NetworkQuoteRepository } from "../pricing/ports";
import { optionFeeLine, type NetworkQuote, type NetworkQuoteOption } from "../pricing/network-quote";
import { tripRefusal, type TripAdmissionDeps } from "../partners/admission";
import { sameClassOrBetter } from "../fleet/vehicle-class";
import { isAirportPickup, isHourlyTrip, termsFor } from "../trips/terms";
import { decideFareFinal, fareDue } from "../trips/final-fare";
import { assignDue, decideUnassignedWarning } from "../trips/assignment-deadline";

/**
 * The offer watch (docs/terms.md#the-acceptance-deadline-acceptby, docs/terms.md#the-cascade-fallback): every few
 * seconds it claims the bookings whose offer is due — a provider let acceptBy pass, or a booking with a fallback was
 * REJECTed, given back or could not be delivered — and, for each, finds the next option of its network quote (cheapest
 * first, another provider that takes the requester's trips, fee ≤ maxFee, its notice and vehicle free, all checked at
 * the move), then decides in ONE booking transaction: move the booking to it — the vehicle hold swapped, the CANCEL to
 * the provider that lost it and a NEW to the next, all in that transaction — or end it as REJECT.
 */
export interface OfferWatchDeps {
  bookings: Pick<BookingRepository, "findById" | "change">;
  deadlines: OfferDeadlines;
  networkQuotes: Pick<NetworkQuoteRepository, "find">;
  holds?: HoldIndex;
  admission: TripAdmissionDeps;
  airports: AirportDirectory;
  /** Places the drop-off as the booked quote did (docs/places.md#drop-offs-and-stops); absent: its lat/lon or airport only. */
  places?: RoutePlacingDeps;
  clock: Clock;
}

/** Bookings one pass claims at most, and how long a claim keeps other instances off them (s). */
export const OFFER_WATCH_BATCH = 200;
export const OFFER_LEASE_SECONDS = 15;
/** Options of one quote tried for one move at most (each a vehicle claim). */
const MAX_TRIED_OPTIONS = 20;

/** What the watch did to one booking: an offer's outcome, or its fare made final. */
export type WatchOutcome = OfferOutcome | { kind: "fare_final" } | { kind: "unassigned_warning" };

/** What one pass did. */
export interface OfferWatchPass {
  moved: number;
  ended: number;
  /** Fares made final (docs/settlement.md#the-final-fare). */
  fareFinal: number;
  /** Bookings warned of no chauffeur by their deadline (docs/terms.md#the-assignment-deadline). */
  unassigned: number;
  /** Due bookings claimed (handled or found not due any more). */
  claimed: number;
}

/** One pass: handles every booking due now, in batches, until none is left (each booking on its own). */
export async function watchOffers(deps: OfferWatchDeps, onError: (err: unknown, transactionId: string) => void = () => {}): Promise<OfferWatchPass> {
  const pass: OfferWatchPass = { moved: 0, ended: 0, fareFinal: 0, unassigned: 0, claimed: 0 };
  for (;;) {
    const now = deps.clock.now();
    const due = await deps.deadlines.claimDue(now, OFFER_WATCH_BATCH, OFFER_LEASE_SECONDS);
    pass.claimed += due.length;
    const outcomes = await Promise.all(due.map((id) => handleDue(deps, id, now).catch((err) => (onError(err, id), { kind: "none" as const }))));
    for (const o of outcomes) if (o.kind === "moved") pass.moved++;
    else if (o.kind === "ended") pass.ended++;
    else if (o.kind === "fare_final") pass.fareFinal++;
    else if (o.kind === "unassigned_warning") pass.unassigned++;
    if (due.length < OFFER_WATCH_BATCH) return pass;
  }
}

/**
 * Acts on one due booking: the next option found (its vehicle free when looked at), then ONE booking transaction moves
 * the booking and swaps its vehicle hold for the next one's (or ends it). When another booking took that vehicle
 * meanwhile, the transaction keeps nothing (VEHICLE_UNAVAILABLE) and the next option is tried.
 */
export async function handleDue(deps: OfferWatchDeps, transactionId: string, now: number): Promise<WatchOutcome> {
  const b = await deps.bookings.findById(transactionId);
  // The same watch makes a fare final when its window has passed (docs/settlement.md#the-final-fare).
  if (b && fareDue(b) !== null) {
    const made = await deps.bookings.change({ transactionId }, (current) => decideFareFinal(current, now));
    return made ? { kind: "fare_final" } : { kind: "none" };
  }
  // And warns both parties of a booking without a chauffeur by its deadline (docs/terms.md#the-assignment-deadline).
  const assignAt = b ? assignDue(b) : null;
  if (assignAt !== null && assignAt <= now) {
    const warned = await deps.bookings.change({ transactionId }, (current) => decideUnassignedWarning(current, now));
    return warned ? { kind: "unassigned_warning" } : { kind: "none" };
  }
  if (!b || !moveCause(b, now)) return { kind: "none" };
  const taken = new Set<string>();
  for (;;) {
    const next = mayMove(b, now) ? await nextOffer(deps, b, now, taken) : undefined;
    try {
      const outcome = await deps.bookings.change({ transactionId }, (current) =>
        // Changed since it was read (another instance moved it, the provider answered): the next pass sees it afresh.
        current && (current.providerId !== b.providerId || current.status !== b.status || (current.offers?.length ?? 1) !== (b.offers?.length ?? 1))
          ? { result: { kind: "none" as const } }
          : decideOfferDue(current, now, next),
      );
      if (outcome.kind !== "none") deps.holds?.forget(b.providerId);
      return outcome;
    } catch (err) {
      // Bounded: each failed try leaves one more option out (MAX_TRIED_OPTIONS at most are looked at).
      if (!next || !(err instanceof ConflictError && err.code === "VEHICLE_UNAVAILABLE") || taken.size >= MAX_TRIED_OPTIONS) throw err;
      taken.add(next.code);
      deps.holds?.forget(next.provider);
    }
  }
}

/** The booked vehicle's hold span for a provider's vehicle: pickup to the estimated end plus its turnaround. */
async function spanFor(deps: OfferWatchDeps, b: Booking, turnaroundMinutes: number | undefined): Promise<{ from: number; to: number }> {
  const minutes = Number(b.trip.totalTripDuration);
  const { locations } = b.trip;
  // Along the stops, as the quote estimated it (docs/rates.md#stops-the-road-runs-through-them).
  const route = deps.places
    ? routePositions(await placeRoute(locations, deps.places))
    : { dropOff: positionOf(locations.dropOff, deps.airports), stops: stopPositions(locations.stops, deps.airports) };
  const quarterHours = quoteQuarterHours({
    tripMinutes: Number.isFinite(minutes) && minutes > 0 ? minutes : undefined,
    pickup: positionOf(b.trip.locations.pickup, deps.airports),
    ...route,
  } as Parameters<typeof quoteQuarterHours>[0]);
  return holdSpan(b.pickupDate, quarterHours, turnaroundMinutes ?? DEFAULT_TURNAROUND_MINUTES);
}

/** The option's fee in `currency` (its own, or the converted one the quote showed), when it can be compared with maxFee. */
function feeIn(o: NetworkQuoteOption, currency: string | null): number | undefined {
  if (o.converted !== undefined && o.converted.currency === currency) return Number(o.converted.fee);
  return o.currency === currency ? Number(o.fee) : undefined;
}

/**
 * The currency of `fallback.maxFee` (docs/terms.md#the-cascade-fallback): the converted currency of
 * docs/fx.md#what-a-network-quote-shows when the option booked first was
 * shown converted (the quote asked for a `currency`, or the requester's displayCurrency), else that option's own.
 */
export function capCurrency(quote: NetworkQuote, b: Booking): string | null {
  const first = b.offers?.[0];
  const own = first?.currency ?? b.trip.fees[0]?.currency ?? null;
  const booked = first
    ? quote.options.find((o) => o.provider.netid.toLowerCase() === first.provider.toLowerCase() && o.currency === first.currency && o.fee === first.fee)
    : undefined;
  return booked?.converted?.currency ?? own;
}

/** The options the booking may move to, cheapest first: other providers than those offered it so far, within the cap. */
export function cascadeCandidates(quote: NetworkQuote, b: Booking): NetworkQuoteOption[] {
  const tried = new Set((b.offers ?? [{ provider: b.providerId }]).map((o) => o.provider.toLowerCase()));
  tried.add(b.providerId.toLowerCase());
  const currency = capCurrency(quote, b);
  const cap = Number(b.fallback?.maxFee);
  const priced = quote.options
    .filter((o) => !tried.has(o.provider.netid.toLowerCase()))
    .map((o) => ({ o, fee: feeIn(o, currency) }))
    .filter((x): x is { o: NetworkQuoteOption; fee: number } => x.fee !== undefined && Number.isFinite(x.fee) && x.fee <= cap);
  return priced.sort((x, y) => x.fee - y.fee).map((x) => x.o);
}

/**
 * The first candidate the booking may move to now (docs/terms.md#deadlines-within-the-trip): of the class booked or a
 * larger one when `fallback.sameClassOrBetter`, whose provider takes the requester's trips (a partner, when the quote
 * asked partners only), gives the notice it asks for (`minimumNoticeMinutes`) and whose vehicle is free (not `taken`);
 * with the terms the provider's policies give the trip now.
 */
async function nextOffer(deps: OfferWatchDeps, b: Booking, now: number, taken: ReadonlySet<string>): Promise<NextOffer | undefined> {
  const quote = await deps.networkQuotes.find(b.quoted!.quoteId!);
  if (!quote) return undefined;
  const booked = b.offers?.[0]?.vehType ?? b.trip.fees[0]?.vehType;
  for (const o of cascadeCandidates(quote, b).slice(0, MAX_TRIED_OPTIONS)) {
    if (taken.has(o.code)) continue;
    if (b.fallback?.sameClassOrBetter && !sameClassOrBetter(booked, o.vehType)) continue;
    const provider = o.provider.netid;
    if (await tripRefusal(deps.admission, b.requesterId, provider)) continue;
    if (quote.partnersOnly && (await deps.admission.partnerships.find(b.requesterId, provider))?.state !== "active") continue;
    const integration = await deps.admission.integrations.get(provider);
    if (b.pickupDate - now < (integration?.minimumNoticeMinutes ?? 0) * 60) continue;
    let hold: NextOffer["hold"];
    if (deps.holds) {
      const span = await spanFor(deps, b, integration?.turnaroundMinutes);
      const busy = await deps.holds.store.scheduleOf(o.code, span.from, span.to, now);
      if (busy.some((h) => h.transactionId !== b.transactionId)) continue;
      hold = { slug: o.code, provider, requester: b.requesterId, transactionId: b.transactionId, ...span, at: now };
    }
    // The next provider answers within its own time when it set one, under its own terms (docs/terms.md#policies).
    const answer = integration?.policies?.acceptWithinMinutes;
    const pickup = b.trip.locations.pickup;
    const terms = termsFor(integration?.policies, b.pickupDate, { hourly: isHourlyTrip(b.trip), airport: isAirportPickup(pickup, deps.airports) });
    return {
      provider,
      code: o.code,
      fee: o.fee,
      currency: o.currency,
      fees: [optionFeeLine(o, isoAt(quote.validUntil))],
      vehType: o.vehType,
      terms,
      ...(o.converted ? { converted: o.converted } : {}),
      ...(answer !== undefined ? { acceptWithinMinutes: answer } : {}),
      ...(hold ? { hold } : {}),
    };
  }
  return undefined;
}
