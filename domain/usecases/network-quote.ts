import { STORE_BOUNDS, STORE_BOUND_RETRY_AFTER_SECONDS, utf8Bytes, type StoreBounds } from "../events/store-bounds";
import { TooManyRequestsError, ValidationError, type FieldError } from "../errors";
import { NETID_PATTERN } from "../company/registration";
import type { Caller, Clock, CompanyRepository } from "../ports";
import { isoAt } from "../trips/booking";
import type { SendTripResult } from "../trips/decisions";
import { checkNewTrip, type NewTrip, type SendTripInput } from "../trips/send-trip-request";
import {
  MAX_NAMED_PROVIDERS,
  NETWORK_QUOTE_VALIDITY_SECONDS,
  networkOptionsOf,
  type NetworkQuote,
  type NetworkQuoteOption,
  type NetworkQuoteWarning,
} from "../pricing/network-quote";
import type { NetworkQuoteRepository } from "../pricing/ports";
import type { NetworkPricing, ServingProviders } from "../pricing/network-pricing";
import { cancellationFeeApplies, isAirportPickup, isHourlyTrip, termsFor } from "../trips/terms";
import { byReliability } from "../partners/provider-record";
import type { ProviderRecords } from "./provider-record";
import type { Terms } from "../trips/booking";
import { availabilityWarnings } from "../pricing/available-set";
import { findNetworkQuote, pricedTripOf } from "../pricing/quoted-choice";
import { admitProviders, type NetworkAsk, type TripAdmissionDeps } from "../partners/admission";
import { sendTrip, type SendTripDeps } from "./send-trip";
import { NetworkConversion, type NetworkFx } from "../pricing/network-fx";
import { fareCurrencyProblem } from "../currency";
import { askedExtras, extraNotOffered, unpricedVehicles } from "../pricing/trip-extras";
import { tripTooLong } from "../trips/trip-length";
import { vehicleRateLine } from "../pricing/card-pricing";
import { RETENTION } from "../retention";

export { findNetworkQuote } from "../pricing/quoted-choice";

/**
 * Network quote: one trip priced across every provider that would take it from the caller and has vehicles
 * serving its pickup, from their published rates, in one currency; stored for its validity and shown only to its
 * maker. Nothing reaches a provider until an option is booked — then it is an ordinary NEW to that provider at
 * the quoted price (through sendTrip, so every rule of a trip sent to it applies).
 */

export interface NetworkQuoteDeps {
  quotes: NetworkQuoteRepository;
  companies: Pick<CompanyRepository, "findByNetid" | "namesOf">;
  admission: TripAdmissionDeps;
  pricing: NetworkPricing;
  clock: Clock;
  newQuoteId: () => string;
  /** Booking an option is a sendTrip NEW. */
  send: SendTripDeps;
  /** Providers' records (docs/terms.md#provider-record): on each option, and what `sort: "reliability"` ranks by; absent: none shown. */
  records?: Pick<ProviderRecords, "recordsOf">;
  /** The store's per-company bounds (docs/security.md#per-company-store-bounds); STORE_BOUNDS when not given. */
  bounds?: Pick<StoreBounds, "quotesPerHour" | "quoteMaxBytes" | "quoteKeptBytes">;
  /**
   * The FX table options are ranked and converted with (docs/fx.md#what-a-network-quote-shows); without it, one
   * currency (docs/integration.md#what-a-quote-offers-service-area-currency-warnings).
   */
  fx?: NetworkFx;
}

/** A POST /api/quotes body: a trip in the sendTrip shape without a provider, and whom to ask. */
export interface NetworkQuoteInput extends SendTripInput {
  providers?: string[];
  partnersOnly?: boolean;
  /** The currency to show each option converted into (else the caller's displayCurrency). */
  currency?: string;
  /** "price" (default): cheapest first; "reliability": by the provider's record, then price (docs/terms.md#provider-record). */
  sort?: unknown;
  /** Extras the trip asks (docs/rates.md#how-a-vehicle-is-priced). */
  extras?: unknown;
}

/** The quote as its maker sees it. */
export interface NetworkQuoteView {
  quoteId: string;
  validUntil: string;
  currency: string | null;
  totalAmount: string | null;
  options: NetworkQuoteOption[];
  warnings: NetworkQuoteWarning[];
}

/** Top-level members that are not trip fields of the quote (whom to ask; a booking's own). */
const NOT_TRIP = new Set([
  "providers", "partnersOnly", "affiliateReservation", "transactionId", "submitMode", "fees", "reservationType", "quoteId", "currency", "sort",
]);

/**
 * Request a network quote: check the trip (every failing field at once), find the providers whose vehicles serve
 * the pickup and seat the party (and hold its luggage), admit those that would take the trip from the caller (and,
 * when asked, only `providers` and partners), rank their priced vehicles in one currency, name the providers, store.
 */
export async function requestNetworkQuote(deps: NetworkQuoteDeps, caller: Caller, input: NetworkQuoteInput): Promise<NetworkQuoteView> {
  const { trip, ask } = await checkQuoteRequest(deps, caller, input);
  const now = deps.clock.now();
  const bounds = deps.bounds ?? STORE_BOUNDS;
  // Checked before any pricing work: a company past a bound costs the service an indexed count and a sum of at most 49 rows.
  const [lastHour, kept] = await Promise.all([deps.quotes.countSince(caller.netid, now - 3600), deps.quotes.keptSince(caller.netid, now - QUOTE_KEPT_SECONDS)]);
  if (lastHour >= bounds.quotesPerHour)
    throw new TooManyRequestsError(
      STORE_BOUND_RETRY_AFTER_SECONDS,
      `Your company stored ${bounds.quotesPerHour} network quotes in the last hour, its bound; retry later`,
      "QUOTE_STORE_QUOTA",
    );
  if (kept.bytes >= bounds.quoteKeptBytes) throw quoteStoreFull(kept, bounds.quoteKeptBytes, now);
  const serving = await deps.pricing.servingProviders(trip, now);
  const admission = await admitProviders(deps.admission, ask, serving.netids, serving.integrations);
  const conversion = deps.fx ? new NetworkConversion(deps.fx, input.currency ?? (await displayCurrencyOf(deps, caller))) : undefined;
  const ranking = await serving.rank(admission, conversion?.ranker);

  const warnings: NetworkQuoteWarning[] = [...(serving.placeWarnings ?? [])];
  if (ranking.leftOut > 0) {
    const currencies = ranking.leftOutCurrencies;
    warnings.push({
      code: "OTHER_CURRENCIES_LEFT_OUT",
      message: `${ranking.leftOut} vehicle option(s) priced in ${currencies.join(", ")} left out: this quote is in ${ranking.currency}`,
      count: ranking.leftOut,
      currencies,
    });
  }
  warnings.push(...availabilityWarnings(ranking.shortNotice, ranking.busy));
  // docs/rates.md#how-a-vehicle-is-priced, docs/rates.md#never-absurd-the-longest-trip-a-provider-quotes: providers
  // left out for the trip's length or an extra they cannot supply; fees of 0.
  if (ranking.tooLongProviders > 0) warnings.push(tripTooLong(ranking.tooLong, ranking.roadKm ?? 0));
  if (ranking.extraNotOffered > 0) warnings.push(extraNotOffered(ranking.extraNotOffered, ranking.missingExtras));
  if ((ranking.unpriced ?? 0) > 0) warnings.push(unpricedVehicles(ranking.unpriced!));
  const names = await deps.companies.namesOf([...new Set(ranking.chosen.map((v) => v.entry.netid))]);
  const shown = withTerms(networkOptionsOf(ranking.chosen, names), serving, trip, deps.send.airports);
  // Options already past their free cancellation say so (docs/terms.md#terms-on-every-quote-option-and-every-booking).
  const paid = cancellationFeeApplies(shown, now);
  if (paid) warnings.push(paid);
  const converted = conversion ? conversion.convert(shown, ranking.chosen) : shown;
  if (conversion) warnings.push(...conversion.warnings(converted, now));
  const options = await withRecords(deps, converted, input.sort === "reliability");
  if (options.length === 0)
    warnings.push({
      code: "NO_VEHICLE_NEAR_PICKUP",
      message: "No provider that takes this trip from you has an active vehicle serving the pickup that seats the party",
    });

  const quote: NetworkQuote = {
    quoteId: deps.newQuoteId(),
    makerNetid: caller.netid,
    makerUid: caller.uid,
    createdAt: now,
    validUntil: now + NETWORK_QUOTE_VALIDITY_SECONDS,
    currency: options.length > 0 ? (conversion ? quoteCurrency(options[0], conversion.target) : (ranking.currency ?? null)) : null,
    trip: tripFieldsOf(input),
    pricedTrip: pricedTripOf(trip),
    options,
    warnings,
    // A booking of it moves only among partners too (docs/terms.md#deadlines-within-the-trip).
    ...(ask.partnersOnly ? { partnersOnly: true } : {}),
  };
  // The stored quote is bounded as a whole (the trip with its extra members, the options, the warnings).
  const bytes = utf8Bytes(JSON.stringify(quote));
  if (bytes > bounds.quoteMaxBytes)
    throw new TooManyRequestsError(
      STORE_BOUND_RETRY_AFTER_SECONDS,
      `This quote would take ${bytes} bytes to keep, more than the ${bounds.quoteMaxBytes} a quote may; ask with a smaller trip or fewer providers`,
      "QUOTE_TOO_LARGE",
    );
  if (kept.bytes + bytes > bounds.quoteKeptBytes) throw quoteStoreFull(kept, bounds.quoteKeptBytes, now);
  await deps.quotes.save(quote, bytes);
  return networkQuoteView(quote);
}

/** How long a stored quote is kept: its validity, then the retention after it (docs/security.md#per-company-store-bounds). */
const QUOTE_KEPT_SECONDS = NETWORK_QUOTE_VALIDITY_SECONDS + RETENTION.networkQuotes;

/** 429 QUOTE_STORE_FULL: the company keeps its bound of quote bytes; room frees as its earliest kept quotes go. */
function quoteStoreFull(kept: { bytes: number; since?: number }, limit: number, now: number): TooManyRequestsError {
  // The earliest counted hour leaves the count an hour after it began plus the time quotes are kept.
  const frees = kept.since !== undefined ? kept.since + 3600 + QUOTE_KEPT_SECONDS - now : STORE_BOUND_RETRY_AFTER_SECONDS;
  return new TooManyRequestsError(
    Math.max(60, Math.min(frees, QUOTE_KEPT_SECONDS)),
    `Your company keeps ${kept.bytes} bytes of network quotes; at most ${limit} are kept (quotes are kept ${QUOTE_KEPT_SECONDS / 3600} h); ` +
      "retry later, or book from the quotes you have",
    "QUOTE_STORE_FULL",
  );
}

/** Each option with its provider's record, all read at once; ranked by them when asked (`sort: "reliability"`). */
async function withRecords(deps: NetworkQuoteDeps, options: NetworkQuoteOption[], reliability: boolean): Promise<NetworkQuoteOption[]> {
  if (!deps.records || options.length === 0) return options;
  const records = await deps.records.recordsOf(options.map((o) => o.provider.netid));
  const shown = options.map((o) => {
    const record = records.get(o.provider.netid);
    return record ? { ...o, provider: { ...o.provider, record } } : o;
  });
  return reliability ? byReliability(shown) : shown;
}

/** Each option with its provider's terms for the trip (docs/terms.md#policies), counted from the pickup instant. */
function withTerms(options: NetworkQuoteOption[], serving: ServingProviders, trip: NewTrip, airports: SendTripDeps["airports"]): NetworkQuoteOption[] {
  if (serving.pickupDate === undefined) return options;
  const facts = { hourly: isHourlyTrip(trip.trip), airport: isAirportPickup(trip.trip.locations.pickup, airports) };
  const byProvider = new Map<string, Terms>();
  return options.map((o) => {
    let terms = byProvider.get(o.provider.netid);
    if (!terms) byProvider.set(o.provider.netid, (terms = termsFor(serving.integrations.get(o.provider.netid)?.policies, serving.pickupDate!, facts)));
    return { ...o, terms };
  });
}

/** The quote as its maker sees it. */
export function networkQuoteView(q: NetworkQuote): NetworkQuoteView {
  return {
    quoteId: q.quoteId,
    validUntil: isoAt(q.validUntil),
    currency: q.currency,
    totalAmount: totalAmountOf(q),
    // A quote stored before breakdowns: each option its own rates, one line.
    options: q.options.map((o) => (o.breakdown ? o : { ...o, breakdown: vehicleRateLine(o.fee) })),
    warnings: q.warnings,
  };
}

/** A POST /api/quotes/{quoteId}/book body: the option, the caller's reservation number, passengers, and trip fields to add. */
export interface BookQuoteInput extends SendTripInput {
  quoteOptionId?: string;
  requesterResNo?: string;
  providerResNo?: string;
}

/** Members of the booking body that are not trip fields. */
const BOOK_OWN = new Set([
  "quoteOptionId",
  "requesterResNo",
  "providerResNo",
  "affiliateReservation",
  "quoteId",
  "providers",
  "partnersOnly",
  "reservationType",
  "fees",
  "transactionId",
]);

/**
 * Book an option of a network quote: the quote's trip with the fields the body adds, as a NEW REGULAR to the
 * option's provider with `quoteId` and the option's code — sendTrip, handed the quote read here, books it at the
 * quoted price (and answers a repeat of the same requesterResNo with the same booking). A priced field the body
 * sends (locations, counts, duration, extras) replaces the quote's and must price alike: else 409
 * QUOTE_TRIP_MISMATCH naming the fields (a pickup time within 60 minutes of the quoted one books the quoted price).
 */
export async function bookNetworkQuote(deps: NetworkQuoteDeps, caller: Caller, quoteId: string, input: BookQuoteInput): Promise<SendTripResult> {
  const quote = await findNetworkQuote(deps, caller, quoteId);
  const errors: FieldError[] = [];
  const optionId = typeof input.quoteOptionId === "string" ? input.quoteOptionId.trim() : "";
  const option = quote.options.find((o) => o.quoteOptionId === optionId);
  if (optionId === "") errors.push({ field: "quoteOptionId", message: "is required: the quoteOptionId of the option to book" });
  else if (!option) errors.push({ field: "quoteOptionId", message: "is not one of this quote's options" });
  if (errors.length > 0) throw new ValidationError(errors);

  const added: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(input)) if (!BOOK_OWN.has(key)) added[key] = value;
  const body: SendTripInput = {
    ...quote.trip,
    ...added,
    reservationType: "REGULAR",
    fees: [{ code: option!.code }],
    quoteId: quote.quoteId,
    affiliateReservation: {
      ...(input.affiliateReservation ?? {}),
      requesterId: caller.netid,
      requesterResNo: input.requesterResNo,
      providerId: option!.provider.netid,
      ...(input.providerResNo !== undefined ? { providerResNo: input.providerResNo } : {}),
      action: "NEW",
    },
  };
  return sendTrip(deps.send, caller, body, quote);
}

/**
 * Checks a quote request: the trip as a NEW's is checked (passengers optional; the shared trip validation), and
 * whom to ask. Every failing field at once.
 */
async function checkQuoteRequest(deps: NetworkQuoteDeps, caller: Caller, input: NetworkQuoteInput): Promise<{ trip: NewTrip; ask: NetworkAsk }> {
  const errors: FieldError[] = [];
  if (input.affiliateReservation?.providerId !== undefined)
    errors.push({ field: "affiliateReservation.providerId", message: "must not be sent: a network quote asks every provider (narrow it with providers)" });
  const trip = checkNewTrip(tripFieldsOf(input), (field, message) => errors.push({ field, message }), { passengersOptional: true });
  try {
    // `extras: [{code, quantity}]` (docs/rates.md#how-a-vehicle-is-priced): each bad member named.
    askedExtras({ extras: input.extras });
  } catch (err) {
    if (!(err instanceof ValidationError)) throw err;
    errors.push(...err.errors);
  }

  let providers: Set<string> | undefined;
  if (input.providers !== undefined) {
    if (!Array.isArray(input.providers) || input.providers.length === 0 || input.providers.length > MAX_NAMED_PROVIDERS)
      errors.push({ field: "providers", message: `must list 1 to ${MAX_NAMED_PROVIDERS} provider netids` });
    else {
      providers = new Set();
      for (const [i, raw] of input.providers.entries()) {
        // Only the shape is checked: a netid nobody holds narrows to no option, answered like a known one that
        // serves nothing, so the list never tells registered companies from unknown ones (issue 37 N7).
        const netid = typeof raw === "string" ? raw.trim() : "";
        if (!NETID_PATTERN.test(netid)) errors.push({ field: `providers[${i}]`, message: "must be a netid (letters, digits, - and _)" });
        else providers.add(netid.toLowerCase());
      }
    }
  }
  if (input.currency !== undefined) {
    const problem = fareCurrencyProblem(input.currency);
    if (problem) errors.push({ field: "currency", message: problem });
  }
  if (input.partnersOnly !== undefined && typeof input.partnersOnly !== "boolean") errors.push({ field: "partnersOnly", message: "must be true or false" });
  if (input.sort !== undefined && input.sort !== "price" && input.sort !== "reliability")
    errors.push({ field: "sort", message: "must be price or reliability" });
  if (errors.length > 0) throw new ValidationError(errors);
  return { trip, ask: { requester: caller.netid, providers, partnersOnly: input.partnersOnly === true, preferredVehicleType: trip.trip.preferredVehicleType } };
}

/** The trip fields of a quote request as sent (what a booking of an option starts from). */
function tripFieldsOf(input: NetworkQuoteInput): Record<string, unknown> {
  const trip: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(input)) if (!NOT_TRIP.has(key)) trip[key] = value;
  return trip;
}

/** The caller's integration setting `displayCurrency`, when set. */
async function displayCurrencyOf(deps: NetworkQuoteDeps, caller: Caller): Promise<string | undefined> {
  return (await deps.admission.integrations.get(caller.netid))?.displayCurrency ?? undefined;
}

/** The quote's `currency`: that of its first option as shown (converted into the target when it could be). */
function quoteCurrency(first: NetworkQuoteOption, target: string | undefined): string {
  return target !== undefined && first.converted?.currency === target ? target : first.currency;
}

/** The first option's fee in the quote's currency: converted when the quote's currency is the one it was converted into. */
function totalAmountOf(q: NetworkQuote): string | null {
  const first = q.options[0];
  if (!first) return null;
  return first.converted !== undefined && first.currency !== q.currency && first.converted.currency === q.currency ? first.converted.fee : first.fee;
}
