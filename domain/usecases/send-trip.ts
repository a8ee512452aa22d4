import type { AirportDirectory } from "../airports";
import type { CurrencyDirectory } from "../currency";
import { ForbiddenError, ValidationError } from "../errors";
import type { Caller, Clock, CompanyRepository } from "../ports";
import {
  contentFingerprint,
  decideCancelTrip,
  decideNewTrip,
  decideUpdateTrip,
  requireRole,
  type ChangeContext,
  type SendTripResult,
} from "../trips/decisions";
import { requesterFeesInCurrency } from "../trips/booking-amounts";
import type { QuoteOption } from "../trips/booking";
import { pickupCityWarnings, placePickup, type Gazetteer } from "../trips/pickup-place";
import { landingReader, pickupTimeRefusal, pickupTimeWarnings, readPickupTime } from "../trips/pickup-time";
import { pickupFlight } from "../trips/flights";
import { positionOf, type Position, type TimeZones } from "../trips/places";
import type { BookingRepository, Geocoder } from "../trips/ports";
import { placeRoute, routePositions, unplacedWarnings, type PlacedRoute } from "../trips/drop-off-place";
import { DEFAULT_BOOKING_LIMITS, withinBounds, type BookingLimits } from "../trips/booking-bounds";
import type { ServingFleet } from "../pricing/service-area";
import { unknownPassengerFields, type TripWarning } from "../trips/warnings";
import { quoteProvider } from "./quote-provider";
import { repriceForUpdate } from "./reprice-booking";
import { bookHolding, type VehicleClaim } from "./availability";
import { DEFAULT_TURNAROUND_MINUTES, HOLD_LIMITS, holdSpan, type HoldIndex, type HoldLimits } from "../fleet/holds";
import { quoteQuarterHours } from "../pricing/quote";
import { cancellationFeeApplies, isAirportPickup, isHourlyTrip, termsFor } from "../trips/terms";
import { recoveryTiersOf } from "../trips/give-back-recovery";
import { askedExtras } from "../pricing/trip-extras";
import { cardFacts } from "../pricing/card-facts";
import type { NetworkQuoteRepository, ProviderFleet, RateCardRepository } from "../pricing/ports";
import { validateSendTrip, type NewTripRequest, type SendTripInput } from "../trips/send-trip-request";
import { providerVehicleType, tripRefusal, type TripAdmissionDeps } from "../partners/admission";
import type { NetworkQuote } from "../pricing/network-quote";
import { findNetworkQuote, quotedChoice, type QuotedChoice } from "../pricing/quoted-choice";

export interface SendTripDeps {
  /** Providers' rate cards: a QUOTE prices with the provider's card (docs/rates.md#how-a-vehicle-is-priced). */
  rateCards?: RateCardRepository;
  bookings: BookingRepository;
  companies: Pick<CompanyRepository, "findByNetid">;
  fleet: ProviderFleet;
  /** The provider's active vehicles serving a pickup, through the geo index. */
  servingFleet: ServingFleet;
  airports: AirportDirectory;
  timeZones: TimeZones;
  /** Places a pickup by its city when it has no coordinates or airport. */
  gazetteer: Gazetteer;
  /** Places a drop-off's or stop's address (docs/places.md#drop-offs-and-stops); absent: by its city. */
  geocoder?: Geocoder;
  currencies: CurrencyDirectory;
  /** Who a provider takes trips from, and how it reads a partner's vehicle types. */
  admission: TripAdmissionDeps;
  clock: Clock;
  newTransactionId: () => string;
  /** What one booking may hold as a whole (default: MAX_BODY_BYTES's default). */
  limits?: BookingLimits;
  /** Network quotes a NEW with `quoteId` books an option of. */
  networkQuotes: NetworkQuoteRepository;
  /**
   * Vehicles held by live bookings and blackouts (docs/availability.md,
   * docs/availability.md#booking-a-quoted-vehicle-that-became-busy); without it nothing is held.
   */
  holds?: HoldIndex;
}

/** Platform names of the parties; per-company names arrive with the integration settings. */
const SOURCE_PLATFORM = "API";
const TARGET_PLATFORM = "TRIPSWITCH";

/**
 * Send trip: check every rule, make sure the caller is the requester, then NEW (create, repeat, or
 * convert a quote), UPDATE or CANCEL the booking — each decided and written in one transaction.
 * A provider that takes trips only from partners refuses a new trip, quote or quote booking from anyone else;
 * a repeated NEW of a booking already made, UPDATE and CANCEL stay open to its requester. `quote`: the network
 * quote the NEW's `quoteId` names, when the caller read it already (booking a network quote's option).
 */
export async function sendTrip(deps: SendTripDeps, caller: Caller, input: SendTripInput, quote?: NetworkQuote): Promise<SendTripResult> {
  const checked = validateSendTrip(input, deps.currencies);
  if (!checked.ok) throw new ValidationError(checked.errors);
  const req = checked.value;
  if (req.requesterId.toLowerCase() !== caller.netid.toLowerCase())
    throw new ForbiddenError("affiliateReservation.requesterId must be your own netid", "NOT_YOUR_NETID", {
      errors: [{ field: "affiliateReservation.requesterId", message: "must be your own netid" }],
    });

  const ctx: ChangeContext = { now: deps.clock.now(), netid: caller.netid, uid: caller.uid };
  if (req.action === "NEW") return sendNewTrip(deps, req, ctx, quote, HOLD_LIMITS[caller.plan]);

  // A requesterResNo is the caller's own: look it up under the caller's canonical netid.
  const ref =
    "transactionId" in req.ref ? { transactionId: req.ref.transactionId.toLowerCase() } : { requesterId: caller.netid, requesterResNo: req.ref.requesterResNo };
  if (req.action === "CANCEL") return deps.bookings.change(ref, (current) => decideCancelTrip(current, req.notes, ctx));
  const pickup = req.changes.locations?.pickup;
  const placed = pickup ? placePickup(pickup, deps) : undefined;
  const pickupTime = pickup ? readPickupTime(pickup, deps.airports, deps.timeZones, placed?.placed ? placed.position : undefined) : undefined;
  const pickupDate = pickupTime?.at;
  const timeRefusal = pickupDate !== undefined ? pickupTimeRefusal(pickupDate, ctx.now) : undefined;
  // A pickup sent again sets its flight again (docs/flights.md#flights): null when it names none now.
  const flight = pickup && pickupDate !== undefined ? (pickupFlight(pickup.flightInfo, pickupDate, landingReader(pickup, deps, placed!)) ?? null) : undefined;
  const limits = deps.limits ?? DEFAULT_BOOKING_LIMITS;
  // A booking made from a quote is priced again for a changed trip (or 409 REQUOTE_NEEDED), before the transaction.
  const price = await repriceForUpdate({ ...deps, integrations: deps.admission.integrations }, ref, req.changes, ctx, pickupDate);
  const updated = await deps.bookings.change(ref, (current) => {
    // Fee lines in the currency they name, else the booking's
    // (docs/integration.md#what-a-quote-offers-service-area-currency-warnings); a caller not its requester gets
    // 404/403 first.
    const fees = req.changes.fees && requesterFeesInCurrency(req.changes.fees, requireRole(current, ctx.netid, "requester").trip.fees, deps.currencies);
    const changes = fees ? { ...req.changes, fees } : req.changes;
    // A pickup moved into a spring-forward gap is moved forward and warns as a NEW does (docs/places.md#the-pickups-clock).
    const timeWarnings = pickupTime ? pickupTimeWarnings(pickupTime) : undefined;
    const facts = { providerId: req.providerId, notes: req.notes, pickupDate, timeWarnings, affiliateExtra: req.affiliateExtra, price, flight };
    const decision = decideUpdateTrip(current, changes, facts, ctx);
    // Only an UPDATE that moves the pickup is judged on its time: one resending the same pickup is not refused.
    if (timeRefusal && decision.write && pickupDate !== current?.pickupDate) throw timeRefusal;
    // An UPDATE merges members into the stored trip: the booking as a whole stays within one body's limit.
    return withinBounds(decision, current, limits);
  });
  // The booking's hold moved with its trip: the quotes' copy of the provider's holds is read again.
  if (price?.hold) deps.holds?.forget(price.hold.provider);
  return updated;
}

async function sendNewTrip(
  deps: SendTripDeps,
  req: NewTripRequest,
  ctx: ChangeContext,
  read: NetworkQuote | undefined,
  limits: HoldLimits,
): Promise<SendTripResult> {
  const provider = await deps.companies.findByNetid(req.providerId);
  if (!provider) throw new ValidationError([{ field: "affiliateReservation.providerId", message: `no registered company has netid ${req.providerId}` }]);
  const refusal = await tripRefusal(deps.admission, ctx.netid, provider.netid);
  const request: NewTripRequest = { ...req, requesterId: ctx.netid, providerId: provider.netid };

  const pickup = request.trip.locations.pickup;
  const isQuote = request.trip.reservationType === "QUOTE";
  const placed = placePickup(pickup, deps);
  const pickupTime = readPickupTime(pickup, deps.airports, deps.timeZones, placed.placed ? placed.position : undefined);
  if (pickupTime === undefined) throw new ValidationError([{ field: "locations.pickup.time", message: "must be an ISO 8601 date-time" }]);
  const pickupDate = pickupTime.at;
  const flight = pickupFlight(pickup.flightInfo, pickupDate, landingReader(pickup, deps, placed));
  // A QUOTE must be placed to be priced; a booking is taken all the same (the provider dispatches from the address).
  const refusals = [refusal, pickupTimeRefusal(pickupDate, ctx.now)];
  if (isQuote && !placed.placed)
    refusals.push(
      new ValidationError(
        [{ field: placed.field, message: placed.message }],
        undefined,
        placed.reason === "UNKNOWN_AIRPORT" ? "UNKNOWN_AIRPORT" : "PICKUP_NOT_LOCATED",
      ),
    );
  const warnings: TripWarning[] = placed.placed
    ? pickupCityWarnings(placed)
    : [{ code: "PICKUP_NOT_LOCATED", field: placed.field, message: `The pickup ${placed.message}; the provider dispatches from the address` }];
  warnings.push(...pickupTimeWarnings(pickupTime), ...unknownPassengerFields(request.trip.passengers));
  let asked: ReturnType<typeof askedExtras> = { extras: [], stops: 0 };
  try {
    // Members no schema names (extras among them) are kept in the trip's `extra`.
    const trip = request.trip as unknown as { extra?: { extras?: unknown } } & Parameters<typeof askedExtras>[0];
    asked = askedExtras({ locations: trip.locations, extras: trip.extra?.extras ?? trip.extras });
  } catch (err) {
    if (!(err instanceof ValidationError)) throw err;
    refusals.push(err);
  }
  const firstRefusal = refusals.find((r) => r !== undefined);

  // The provider's terms for this trip (docs/terms.md#policies): on every quote option, kept by a booking made without one.
  const policies = (await deps.admission.integrations.get(provider.netid))?.policies;
  const terms = termsFor(policies, pickupDate, { hourly: isHourlyTrip(request.trip), airport: isAirportPickup(pickup, deps.airports) });
  // The drop-off and stops are placed only where the exchange prices or holds the trip: never for a plain booking.
  let placing: Promise<PlacedRoute> | undefined;
  const route = () => (placing ??= placeRoute(request.trip.locations, deps));
  let options: QuoteOption[] = [];
  if (isQuote && !firstRefusal && placed.placed) {
    const placedRoute = await route();
    // docs/places.md#drop-offs-and-stops: a place nothing could place is priced without (warned), never refused here.
    warnings.push(...placedRoute.warnings, ...unplacedWarnings(placedRoute));
    const quote = await quoteProvider(
      {
        servingFleet: deps.servingFleet,
        currencies: deps.currencies,
        integrations: deps.admission.integrations,
        rateCards: deps.rateCards,
        airports: deps.airports,
        ...(deps.holds ? { holds: deps.holds } : {}),
      },
      provider.netid,
      placed,
      {
        passengerCount: request.passengerCount,
        luggageCount: request.luggageCount,
        ...routePositions(placedRoute),
        tripMinutes: request.tripMinutes,
        now: ctx.now,
        preferredVehType: await providerVehicleType(deps.admission, ctx.netid, provider.netid, request.trip.preferredVehicleType),
      },
      pickupDate,
      cardFacts(request.trip, placed, asked, pickupTime, deps),
    );
    options = quote.options.map((o) => ({ ...o, terms }));
    warnings.push(...quote.warnings);
    // Options already past their free cancellation say so (docs/terms.md#terms-on-every-quote-option-and-every-booking).
    const paid = cancellationFeeApplies(options, ctx.now);
    if (paid) warnings.push(paid);
  }

  // A network quote's option is booked at the quoted price: its fee line replaces the code sent.
  let quoted: QuotedChoice | undefined;
  if (request.quoteId !== undefined) {
    const quote = read?.quoteId.toLowerCase() === request.quoteId ? read : await findNetworkQuote({ quotes: deps.networkQuotes }, ctx, request.quoteId);
    quoted = quotedChoice(quote, request, provider.netid, ctx.now, deps.currencies);
    request.trip = { ...request.trip, fees: quoted.fees };
    // Its other options stay at hand while the booking may still move to one (docs/terms.md#deadlines-within-the-trip).
    if (request.fallback && !firstRefusal && !quoted.expired) await deps.networkQuotes.keepUntil(quote.quoteId, pickupDate);
  }

  const fingerprint = contentFingerprint(request, provider.netid);
  const price = quoted ? { totalAmount: quoted.totalAmount, described: quoted.described, quoted: quoted.quoted } : undefined;
  const facts = {
    terms: quoted?.terms ?? terms,
    ...(policies?.acceptWithinMinutes !== undefined ? { providerAcceptWithinMinutes: policies.acceptWithinMinutes } : {}),
    // What the provider would owe on a give-back travels with the offer (docs/settlement.md#give-back-recovery).
    giveBackRecovery: recoveryTiersOf((await deps.admission.integrations.get(ctx.netid))?.giveBackRecovery),
    transactionId: deps.newTransactionId(),
    pickupDate,
    options,
    warnings,
    ...(flight ? { flight } : {}),
    sourcePlatform: SOURCE_PLATFORM,
    targetPlatform: TARGET_PLATFORM,
    ...(price ? { price } : {}),
  };
  /** `unlessQuote`: a QUOTE stored under the number is left as it is (QuoteToConvert): its conversion claims a vehicle first. */
  const book = (unlessQuote = false) =>
    deps.bookings.change({ requesterId: ctx.netid, requesterResNo: request.requesterResNo }, (current) => {
      // A repeat of what is booked already answers as before; anything it would create or convert is refused.
      if (firstRefusal && current?.contentHash !== fingerprint) throw firstRefusal;
      if (quoted?.expired && current?.contentHash !== fingerprint) throw quoted.expired;
      if (unlessQuote && current?.status === "QUOTE") throw new QuoteToConvert();
      return decideNewTrip(current, request, fingerprint, facts, ctx);
    });
  // A booking made from a quote option holds its vehicle: claimed in the database before the booking is written.
  if (!deps.holds || isQuote || firstRefusal || quoted?.expired) return book();
  if (!quoted) {
    // Without a network quote, a NEW holds a vehicle only when it converts a QUOTE stored under its number. It is
    // booked at once unless its change finds one (then nothing is written, and it is read, claimed and booked
    // below): reading the number before every NEW cost each a database read, a round trip on PostgreSQL.
    const booked = await book(true).catch((error: unknown) => {
      if (error instanceof QuoteToConvert) return undefined;
      throw error;
    });
    if (booked) return booked;
  }
  const pickupAt = placed.placed ? placed.position : undefined;
  const claim = await quotedVehicleClaim(deps, request, provider.netid, facts.transactionId, pickupDate, quoted, pickupAt, route, ctx.now);
  // The requester's unaccepted holds are limited (docs/availability.md#hold-limits): counted in the claim's transaction.
  if (claim) claim.limits = limits;
  // A booking made from a quote keeps a price the drop-off's place may change: say when it was only approximate.
  if (claim && placing) warnings.push(...(await placing).warnings);
  return claim ? bookHolding(deps.holds, claim, ctx.now, book) : book();
}

/** A NEW met a QUOTE under its number that it would convert without claiming the quote's vehicle: nothing was written. */
class QuoteToConvert extends Error {}

/**
 * The vehicle a NEW books from a quote option, and the span it holds: a network quote's option, or the option of a
 * QUOTE this NEW converts (the code sent, else the first). Undefined when it books none (no quote, a repeat of a
 * booking made already, a quote without vehicle options).
 */
async function quotedVehicleClaim(
  deps: SendTripDeps,
  request: NewTripRequest,
  provider: string,
  newTransactionId: string,
  pickupDate: number,
  quoted: QuotedChoice | undefined,
  pickup: Position | undefined,
  route: () => Promise<PlacedRoute>,
  now: number,
): Promise<VehicleClaim | undefined> {
  const current = await deps.bookings.findByResNo("requester", request.requesterId, request.requesterResNo);
  let slug: string | undefined;
  let transactionId = newTransactionId;
  if (quoted && !current) slug = quoted.fees[0]?.code;
  else if (current?.status === "QUOTE" && (current.quoteValidUntil === null || now <= current.quoteValidUntil)) {
    transactionId = current.transactionId;
    const code = request.trip.fees[0]?.code;
    const options = current.trip.fees;
    slug = code ? options.find((o) => o.code === code)?.code : options.every((o) => typeof o.code === "string" && o.code !== "") ? options[0]?.code : undefined;
  }
  if (!slug) return undefined;
  const quarterHours = quoteQuarterHours({ tripMinutes: request.tripMinutes, pickup, ...routePositions(await route()) });
  const turnaround = (await deps.admission.integrations.get(provider))?.turnaroundMinutes ?? DEFAULT_TURNAROUND_MINUTES;
  return { slug, provider, requester: request.requesterId, transactionId, ...holdSpan(pickupDate, quarterHours, turnaround) };
}
