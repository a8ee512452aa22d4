import type { AirportDirectory } from "../airports";
import type { CurrencyDirectory } from "../currency";
import type { IntegrationRepository } from "../delivery/ports";
import { isRequester, type Booking } from "../trips/booking";
import type { ChangeContext } from "../trips/decisions";
import { applyChanges } from "../trips/trip-changes";
import { CANCELLABLE_STATUSES } from "../trips/lifecycle";
import { placePickup, type Gazetteer } from "../trips/pickup-place";
import type { BookingRepository, Geocoder } from "../trips/ports";
import { placeRoute, routePositions } from "../trips/drop-off-place";
import { pricedKey, requoteNeeded, type RepricedTrip } from "../trips/quote-binding";
import type { BookingRef, TripChanges } from "../trips/send-trip-request";
import { servesPickup } from "../pricing/service-area";
import { readTripMinutes } from "../trips/trip-fields";
import { serviceAreaOf } from "./quote-provider";
import { DEFAULT_SERVICE_RADIUS_KM } from "../trips/service-radius";
import { DEFAULT_TURNAROUND_MINUTES, holdSpan, type HoldIndex } from "../fleet/holds";
import { buildQuote, quoteQuarterHours } from "../pricing/quote";
import { canonicalJson } from "../shared/canonical-json";
import type { ProviderFleet, RateCardRepository } from "../pricing/ports";
import { compiledCard, quoteWithCard } from "../pricing/priced-quote";
import { cardFacts } from "../pricing/card-facts";
import { askedExtras } from "../pricing/trip-extras";
import type { TimeZones } from "../trips/places";
import type { Trip } from "../trips/booking";

/** The extras a booked trip asks (its `extras`, kept in the trip's extra members; GNet's meetAndGreet) and its stops. */
function cardExtras(trip: Trip): ReturnType<typeof askedExtras> {
  const t = trip as unknown as { extra?: { extras?: unknown }; extras?: unknown } & Parameters<typeof askedExtras>[0];
  return askedExtras({ locations: t.locations, extras: t.extra?.extras ?? t.extras });
}

/** What re-pricing a booking made from a quote reads: the booking, the vehicle, where the pickup is, the provider's radius. */
export interface RepriceDeps {
  bookings: Pick<BookingRepository, "findById" | "findByResNo">;
  fleet: Pick<ProviderFleet, "activeEntriesBySlug">;
  airports: AirportDirectory;
  gazetteer: Gazetteer;
  /** Places a drop-off's or stop's address (docs/places.md#drop-offs-and-stops); absent: by its city. */
  geocoder?: Geocoder;
  currencies: CurrencyDirectory;
  integrations: Pick<IntegrationRepository, "get">;
  /** The provider's rate card prices the changed trip as its quote did (docs/rates.md#how-a-vehicle-is-priced); absent: the vehicle's own rates. */
  rateCards?: Pick<RateCardRepository, "get">;
  /** The pickup's time zone, for the card's night and date surcharges. */
  timeZones?: TimeZones;
  /** Vehicles held by bookings (docs/availability.md): present, a changed trip's span moves the booking's hold. */
  holds?: HoldIndex;
}

/** Trip fields an UPDATE may send that a price depends on. */
const PRICED_CHANGES = ["locations", "passengerCount", "luggageCount", "totalTripDuration", "runType"] as const;

/**
 * A requester's UPDATE of a booking made from a quote option (docs/integration.md#the-price-is-bound-to-the-trip): when it changes a priced field, the
 * same vehicle priced again for the changed trip with the provider's pricing (`buildQuote`, the quote's own
 * function), or 409 REQUOTE_NEEDED when that vehicle cannot do it (no longer active, the pickup outside the
 * provider's service area or not placeable, too many passengers or too much luggage). Undefined when nothing needs
 * pricing: not a quote's booking, no priced field changed, or an UPDATE the decision refuses anyway (not the
 * requester's, no longer updatable). Read before the transaction; the decision checks the trip is still the one priced.
 */
export async function repriceForUpdate(
  deps: RepriceDeps,
  ref: BookingRef,
  changes: TripChanges,
  ctx: ChangeContext,
  pickupDate: number | undefined,
): Promise<RepricedTrip | undefined> {
  const touched = PRICED_CHANGES.some((k) => changes[k] !== undefined) || changes.extra?.extras !== undefined || "extras" in changes;
  if (!touched) return undefined;
  const current: Booking | undefined =
    "transactionId" in ref
      ? await deps.bookings.findById(ref.transactionId)
      : await deps.bookings.findByResNo("requester", ref.requesterId, ref.requesterResNo);
  const code = current?.quoted?.code;
  if (!current || !code || !isRequester(current, ctx.netid) || !CANCELLABLE_STATUSES.has(current.status)) return undefined;
  const { fees: _kept, ...priced } = changes;
  const trip = applyChanges(current.trip, priced);
  const at = pickupDate ?? current.pickupDate;
  const key = pricedKey(trip, at);
  if (key === pricedKey(current.trip, current.pickupDate)) return undefined;

  const details = { transactionId: current.transactionId, option: code };
  const [vehicle] = await deps.fleet.activeEntriesBySlug(current.providerId, [code]);
  if (!vehicle) throw requoteNeeded(`vehicle ${code} is no longer in the provider's active fleet`, details);
  const placed = placePickup(trip.locations.pickup, deps);
  if (!placed.placed) throw requoteNeeded(`the new pickup ${placed.message}`, details);
  const integration = await deps.integrations.get(current.providerId);
  const radiusKm = integration?.serviceRadiusKm ?? DEFAULT_SERVICE_RADIUS_KM;
  if (!servesPickup(vehicle, serviceAreaOf(placed, radiusKm))) throw requoteNeeded(`the new pickup is outside the service area of vehicle ${code}`, details);
  const luggage = trip.luggageCount === undefined || trip.luggageCount === "" ? undefined : Number(trip.luggageCount);
  // Placed as a quote places them: exact coordinates sent now re-price a trip quoted from a city's centre.
  const route = await placeRoute(trip.locations, deps);
  const build = {
    passengerCount: Number(trip.passengerCount),
    luggageCount: luggage,
    pickup: placed.position,
    ...routePositions(route),
    tripMinutes: readTripMinutes(trip.totalTripDuration, () => undefined) || undefined,
    now: ctx.now,
    ...(placed.country ? { country: placed.country } : {}),
  };
  // The provider's card prices the changed trip as a quote would (route, hourly, distance, surcharges, extras, minimum).
  const stored = deps.rateCards ? await deps.rateCards.get(current.providerId) : undefined;
  const quote =
    stored && deps.timeZones
      ? quoteWithCard(
          [vehicle],
          build,
          cardFacts(trip, placed, cardExtras(trip), { at: at ?? ctx.now }, { airports: deps.airports, timeZones: deps.timeZones }),
          compiledCard(stored, deps.currencies, deps.airports),
          deps.currencies,
        )
      : buildQuote([vehicle], build, deps.currencies);
  const option = quote.options[0];
  const party = `${trip.passengerCount} passenger(s)${luggage !== undefined ? ` with ${luggage} bag(s)` : ""}`;
  const lacking = quote.warnings.find((w) => w.code === "EXTRA_NOT_OFFERED");
  if (!option && lacking) throw requoteNeeded(`the provider's rate card does not offer ${lacking.codes?.join(", ")}`, details);
  if (!option && quote.warnings.some((w) => w.code === "UNPRICED_VEHICLES")) throw requoteNeeded(`vehicle ${code} has no price for this trip`, details);
  if (!option) throw requoteNeeded(`vehicle ${code} does not seat ${party}`, details);
  const before = current.totalAmount ?? "(none)";
  // The vehicle is held over the changed trip's span, moved in the UPDATE's transaction (or 409 VEHICLE_UNAVAILABLE).
  const turnaround = integration?.turnaroundMinutes ?? DEFAULT_TURNAROUND_MINUTES;
  const span = deps.holds && spanMoved(current, trip, at) ? holdSpan(at, quoteQuarterHours(build), turnaround) : undefined;
  const { providerId: provider, requesterId: requester, transactionId } = current;
  return {
    key,
    fees: [option],
    totalAmount: option.fee,
    described: `re-priced for the changed trip: option ${code} ${before} → ${option.fee} ${option.currency}`,
    ...(span ? { hold: { slug: code, provider, requester, transactionId, ...span, at: ctx.now } } : {}),
  };
}

/** Whether a changed trip may hold its vehicle over another span: another pickup time, booked duration or route. */
function spanMoved(current: Booking, trip: Trip, at: number): boolean {
  const duration = (t: Trip) => String(t.totalTripDuration ?? "").trim();
  const route = (t: Trip) => canonicalJson(t.locations);
  return at !== current.pickupDate || duration(trip) !== duration(current.trip) || route(trip) !== route(current.trip);
}
