import type { AirportDirectory } from "../airports";
import { ForbiddenError, ValidationError } from "../errors";
import type { Caller, Clock, CompanyRepository } from "../ports";
import { contentFingerprint, decideCancelTrip, decideNewTrip, decideUpdateTrip, type ChangeContext, type SendTripResult } from "../trips/decisions";
import type { QuoteOption } from "../trips/booking";
import { pickupInstant, positionOf, type TimeZones } from "../trips/places";
import type { BookingRepository, ProviderFleet } from "../trips/ports";
import { buildQuoteOptions } from "../trips/quote";
import { validateSendTrip, type NewTripRequest, type SendTripInput } from "../trips/send-trip-request";
import { providerVehicleType, tripRefusal, type TripAdmissionDeps } from "./partnerships";
import type { NetworkQuoteRepository } from "../quotes/ports";
import { quotedChoice, type QuotedChoice } from "./network-quote";

export interface SendTripDeps {
  bookings: BookingRepository;
  companies: Pick<CompanyRepository, "findByNetid">;
  fleet: ProviderFleet;
  airports: AirportDirectory;
  timeZones: TimeZones;
  /** Who a provider takes trips from, and how it reads a partner's vehicle types. */
  admission: TripAdmissionDeps;
  clock: Clock;
  newTransactionId: () => string;
  /** Network quotes a NEW with `quoteId` books an option of. */
  networkQuotes: NetworkQuoteRepository;
}

/** Platform names of the parties; per-company names arrive with the integration settings. */
const SOURCE_PLATFORM = "API";
const TARGET_PLATFORM = "TRIPSWITCH";

/**
 * Send trip: check every rule, make sure the caller is the requester, then NEW (create, repeat, or
 * convert a quote), UPDATE or CANCEL the booking — each decided and written in one transaction.
 * A provider that takes trips only from partners refuses a new trip, quote or quote booking from anyone else;
 * a repeated NEW of a booking already made, UPDATE and CANCEL stay open to its requester.
 */
export async function sendTrip(deps: SendTripDeps, caller: Caller, input: SendTripInput): Promise<SendTripResult> {
  const checked = validateSendTrip(input);
  if (!checked.ok) throw new ValidationError(checked.errors);
  const req = checked.value;
  if (req.requesterId.toLowerCase() !== caller.netid.toLowerCase())
    throw new ForbiddenError("affiliateReservation.requesterId must be your own netid", "NOT_YOUR_NETID");

  const ctx: ChangeContext = { now: deps.clock.now(), netid: caller.netid, uid: caller.uid };
  if (req.action === "NEW") return sendNewTrip(deps, req, ctx);

  // A requesterResNo is the caller's own: look it up under the caller's canonical netid.
  const ref = "transactionId" in req.ref ? { transactionId: req.ref.transactionId.toLowerCase() } : { requesterId: caller.netid, requesterResNo: req.ref.requesterResNo };
  if (req.action === "CANCEL") return deps.bookings.change(ref, (current) => decideCancelTrip(current, req.notes, ctx));
  const pickup = req.changes.locations?.pickup;
  const pickupDate = pickup ? pickupInstant(pickup, deps.airports, deps.timeZones) : undefined;
  return deps.bookings.change(ref, (current) => decideUpdateTrip(current, req.changes, { providerId: req.providerId, notes: req.notes, pickupDate, affiliateExtra: req.affiliateExtra }, ctx));
}

async function sendNewTrip(deps: SendTripDeps, req: NewTripRequest, ctx: ChangeContext): Promise<SendTripResult> {
  const provider = await deps.companies.findByNetid(req.providerId);
  if (!provider) throw new ValidationError([{ field: "affiliateReservation.providerId", message: `no registered company has netid ${req.providerId}` }]);
  const refusal = await tripRefusal(deps.admission, ctx.netid, provider.netid);
  const request: NewTripRequest = { ...req, requesterId: ctx.netid, providerId: provider.netid };

  const pickup = request.trip.locations.pickup;
  const pickupDate = pickupInstant(pickup, deps.airports, deps.timeZones);
  if (pickupDate === undefined) throw new ValidationError([{ field: "locations.pickup.time", message: "must be an ISO 8601 date-time" }]);

  let options: QuoteOption[] = [];
  if (request.trip.reservationType === "QUOTE" && !refusal) {
    options = buildQuoteOptions(await deps.fleet.activeEntries(provider.netid), {
      passengerCount: request.passengerCount,
      luggageCount: request.luggageCount,
      pickup: positionOf(pickup, deps.airports),
      dropOff: positionOf(request.trip.locations.dropOff, deps.airports),
      tripMinutes: request.tripMinutes,
      now: ctx.now,
      preferredVehType: await providerVehicleType(deps.admission, ctx.netid, provider.netid, request.trip.preferredVehicleType),
    });
  }

  // A network quote's option is booked at the quoted price: its fee line replaces the code sent.
  let quoted: QuotedChoice | undefined;
  if (request.quoteId !== undefined) {
    quoted = await quotedChoice(deps.networkQuotes, { netid: ctx.netid }, request, provider.netid, ctx.now);
    request.trip = { ...request.trip, fees: quoted.fees };
  }

  const fingerprint = contentFingerprint(request, provider.netid);
  const price = quoted ? { totalAmount: quoted.totalAmount, described: quoted.described } : undefined;
  const facts = { transactionId: deps.newTransactionId(), pickupDate, options, sourcePlatform: SOURCE_PLATFORM, targetPlatform: TARGET_PLATFORM, ...(price ? { price } : {}) };
  return deps.bookings.change({ requesterId: ctx.netid, requesterResNo: request.requesterResNo }, (current) => {
    // A repeat of what is booked already answers as before; anything it would create or convert is refused.
    if (refusal && current?.contentHash !== fingerprint) throw refusal;
    if (quoted?.expired && current?.contentHash !== fingerprint) throw quoted.expired;
    return decideNewTrip(current, request, fingerprint, facts, ctx);
  });
}
