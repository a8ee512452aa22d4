import { ConflictError, NotFoundError, ValidationError, type FieldError } from "../errors";
import { NETID_PATTERN } from "../company/registration";
import type { Caller, Clock, CompanyRepository } from "../ports";
import { isoAt } from "../trips/booking";
import { canonicalJson, type SendTripResult } from "../trips/decisions";
import { validateSendTrip, type NewTripRequest, type SendTripInput } from "../trips/send-trip-request";
import {
  MAX_NAMED_PROVIDERS,
  NETWORK_QUOTE_VALIDITY_SECONDS,
  networkOptionsOf,
  optionFeeLine,
  type NetworkQuote,
  type NetworkQuoteOption,
  type NetworkQuoteWarning,
} from "../quotes/network-quote";
import type { NetworkQuoteRepository } from "../quotes/ports";
import type { Fee } from "../trips/booking";
import { providerVehicleType, takesOnlyPartners, type TripAdmissionDeps } from "./partnerships";
import { sendTrip, type SendTripDeps } from "./send-trip";
import type { NetworkAdmission, NetworkPricing } from "../quotes/network-pricing";

/**
 * Network quote: one trip priced across every provider that would take it from the caller and has vehicles
 * serving its pickup, from their published rates, in one currency; stored for its validity and shown only to its
 * maker. Nothing reaches a provider until an option is booked — then it is an ordinary NEW to that provider at
 * the quoted price (through sendTrip, so every rule of a trip sent to it applies).
 */

export interface NetworkQuoteDeps {
  quotes: NetworkQuoteRepository;
  companies: Pick<CompanyRepository, "findByNetid">;
  admission: TripAdmissionDeps;
  pricing: NetworkPricing;
  clock: Clock;
  newQuoteId: () => string;
  /** Booking an option is a sendTrip NEW. */
  send: SendTripDeps;
}

/** A POST /api/quotes body: a trip in the sendTrip shape without a provider, and whom to ask. */
export interface NetworkQuoteInput extends SendTripInput {
  providers?: string[];
  partnersOnly?: boolean;
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
const NOT_TRIP = new Set(["providers", "partnersOnly", "affiliateReservation", "transactionId", "submitMode", "fees", "reservationType", "quoteId"]);
/** The fields the price depends on: a booking of the quote must ask for the same. */
const PRICED = ["locations", "passengerCount", "luggageCount", "totalTripDuration"] as const;
/** A stand-in for the passengers a quote need not name (checked for shape only when sent). */
const NO_PASSENGERS = [{ firstName: "quote", lastName: "quote" }];

/** Canonical JSON of a checked trip's priced fields. */
export function pricedTripOf(req: Pick<NewTripRequest, "trip">): string {
  const t = req.trip;
  return canonicalJson({ locations: t.locations, passengerCount: t.passengerCount, luggageCount: t.luggageCount ?? null, totalTripDuration: t.totalTripDuration ?? null });
}

/**
 * Request a network quote: check the trip (every failing field at once), place the pickup, find every provider's
 * serving vehicles that seat the party (and hold its luggage), keep the providers that would take the trip from
 * the caller (and, when asked, only `providers` and partners), price them, pick the quote's currency, rank, store.
 */
export async function requestNetworkQuote(deps: NetworkQuoteDeps, caller: Caller, input: NetworkQuoteInput): Promise<NetworkQuoteView> {
  const { req, providers, partnersOnly } = await checkQuoteRequest(deps, caller, input);
  const now = deps.clock.now();
  // Whom to ask: not the caller itself, those named, partners when asked, and only providers that take its trips
  // (decided from their integrations, read for all at once; partnerships read only where one is needed).
  const self = caller.netid.toLowerCase();
  const preferred = req.trip.preferredVehicleType;
  const wantsType = preferred !== undefined && preferred.trim() !== "";
  const admission: NetworkAdmission = async (netids, integrations) => {
    const admitted = new Uint8Array(netids.length);
    const preferredType = new Array<string | undefined>(netids.length);
    const pending: Array<Promise<void>> = [];
    for (let k = 0; k < netids.length; k++) {
      const netid = netids[k];
      const lower = netid.toLowerCase();
      if (lower === self || (providers && !providers.has(lower))) continue;
      const needsPartner = partnersOnly || takesOnlyPartners(integrations.get(netid));
      if (!needsPartner && !wantsType) {
        admitted[k] = 1;
        continue;
      }
      pending.push(
        (async () => {
          if (needsPartner && (await deps.admission.partnerships.find(caller.netid, netid))?.state !== "active") return;
          admitted[k] = 1;
          // A provider's partner map of vehicle types applies as for a QUOTE sent to it: its mapped type first.
          preferredType[k] = await providerVehicleType(deps.admission, caller.netid, netid, preferred);
        })(),
      );
    }
    await Promise.all(pending);
    return { admitted, preferredType };
  };
  const ranking = await deps.pricing.rankServingVehicles(req, now, admission);

  const warnings: NetworkQuoteWarning[] = [];
  if (ranking.leftOut > 0) {
    const currencies = ranking.leftOutCurrencies;
    warnings.push({ code: "OTHER_CURRENCIES_LEFT_OUT", message: `${ranking.leftOut} vehicle option(s) priced in ${currencies.join(", ")} left out: this quote is in ${ranking.currency}`, count: ranking.leftOut, currencies });
  }
  const names = new Map<string, string>();
  for (const netid of new Set(ranking.chosen.map((v) => v.entry.netid))) names.set(netid, (await deps.companies.findByNetid(netid))?.name ?? netid);
  const options = networkOptionsOf(ranking.chosen, names);
  const currency = ranking.currency;
  if (options.length === 0)
    warnings.push({ code: "NO_VEHICLE_NEAR_PICKUP", message: "No provider that takes this trip from you has an active vehicle serving the pickup that seats the party" });

  const quote: NetworkQuote = {
    quoteId: deps.newQuoteId(),
    makerNetid: caller.netid,
    makerUid: caller.uid,
    createdAt: now,
    validUntil: now + NETWORK_QUOTE_VALIDITY_SECONDS,
    currency: options.length > 0 ? (currency ?? null) : null,
    trip: tripFieldsOf(input),
    pricedTrip: pricedTripOf(req),
    options,
    warnings,
  };
  await deps.quotes.save(quote);
  return networkQuoteView(quote);
}

/** The quote as its maker sees it. */
export function networkQuoteView(q: NetworkQuote): NetworkQuoteView {
  return { quoteId: q.quoteId, validUntil: isoAt(q.validUntil), currency: q.currency, totalAmount: q.options[0]?.fee ?? null, options: q.options, warnings: q.warnings };
}

/** A network quote of the caller's company; anyone else's, and an unknown id, are the same 404. */
export async function findNetworkQuote(deps: Pick<NetworkQuoteDeps, "quotes">, caller: Pick<Caller, "netid">, quoteId: string): Promise<NetworkQuote> {
  const quote = isQuoteId(quoteId) ? await deps.quotes.find(quoteId.toLowerCase()) : undefined;
  if (!quote || quote.makerNetid.toLowerCase() !== caller.netid.toLowerCase()) throw new NotFoundError("No network quote with this quoteId", "QUOTE_NOT_FOUND");
  return quote;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const isQuoteId = (s: string) => UUID.test(s);

/** A POST /api/quotes/{quoteId}/book body: the option, the caller's reservation number, passengers, and trip fields to add. */
export interface BookQuoteInput extends SendTripInput {
  quoteOptionId?: string;
  requesterResNo?: string;
  providerResNo?: string;
}

/** Members of the booking body that are not trip fields. */
const BOOK_OWN = new Set(["quoteOptionId", "requesterResNo", "providerResNo", "affiliateReservation", "quoteId", "providers", "partnersOnly", "reservationType", "fees", "transactionId"]);

/**
 * Book an option of a network quote: the quote's trip with the fields the body adds, as a NEW REGULAR to the
 * option's provider with `quoteId` and the option's code — sendTrip books it at the quoted price (and answers a
 * repeat of the same requesterResNo with the same booking).
 */
export async function bookNetworkQuote(deps: NetworkQuoteDeps, caller: Caller, quoteId: string, input: BookQuoteInput): Promise<SendTripResult> {
  const quote = await findNetworkQuote(deps, caller, quoteId);
  const errors: FieldError[] = [];
  const optionId = typeof input.quoteOptionId === "string" ? input.quoteOptionId.trim() : "";
  const option = quote.options.find((o) => o.quoteOptionId === optionId);
  if (optionId === "") errors.push({ field: "quoteOptionId", message: "is required: the quoteOptionId of the option to book" });
  else if (!option) errors.push({ field: "quoteOptionId", message: "is not one of this quote's options" });
  for (const key of PRICED)
    if (input[key] !== undefined) errors.push({ field: key, message: "is fixed by the quote; request a new quote for another trip" });
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
  return sendTrip(deps.send, caller, body);
}

/** What booking a network quote's option through sendTrip fixes: the one fee line and the price. */
export interface QuotedChoice {
  fees: Fee[];
  totalAmount: string;
  /** The changeLogs words for it. */
  described: string;
  /** The quote expired: refused unless the booking already exists with this content. */
  expired?: ConflictError;
}

/**
 * The option of network quote `quoteId` a sendTrip NEW books: the caller's quote (404 otherwise), a REGULAR or
 * ONDEMAND trip for the same pickup, drop-off, party and duration (400 naming `quoteId` otherwise), the option of
 * this provider named by `fees[0].code` (400 naming it otherwise). After validUntil: 409 QUOTE_EXPIRED, which the
 * caller raises only when the booking does not exist yet (a repeat is answered as before).
 */
export async function quotedChoice(quotes: NetworkQuoteRepository, caller: Pick<Caller, "netid">, req: NewTripRequest, providerNetid: string, now: number): Promise<QuotedChoice> {
  const quote = await findNetworkQuote({ quotes }, caller, req.quoteId!);
  const errors: FieldError[] = [];
  if (req.trip.reservationType === "QUOTE") errors.push({ field: "reservationType", message: "must be REGULAR or ONDEMAND to book a network quote's option" });
  if (pricedTripOf(req) !== quote.pricedTrip)
    errors.push({ field: "quoteId", message: "the trip's locations, passengerCount, luggageCount or totalTripDuration differ from the quoted trip; request a new quote" });
  const code = req.trip.fees[0]?.code;
  const option = code ? quote.options.find((o) => o.provider.netid.toLowerCase() === providerNetid.toLowerCase() && o.code === code) : undefined;
  if (!code) errors.push({ field: "fees[0].code", message: "is required with quoteId: the code of the option to book" });
  else if (!option) errors.push({ field: "fees[0].code", message: `is not an option of this quote from ${providerNetid}` });
  if (errors.length > 0) throw new ValidationError(errors);
  const expired =
    now > quote.validUntil
      ? new ConflictError(`The quote expired at ${isoAt(quote.validUntil)}; request a new quote`, "QUOTE_EXPIRED", { quoteId: quote.quoteId, validUntil: isoAt(quote.validUntil) })
      : undefined;
  return {
    fees: [optionFeeLine(option!, isoAt(quote.validUntil))],
    totalAmount: option!.fee,
    described: `network quote ${quote.quoteId}, option ${option!.code} at ${option!.fee} ${option!.currency}`,
    ...(expired ? { expired } : {}),
  };
}

/** Checks a quote request: the trip as a NEW would be checked (passengers optional), and whom to ask. */
async function checkQuoteRequest(deps: NetworkQuoteDeps, caller: Caller, input: NetworkQuoteInput) {
  const errors: FieldError[] = [];
  if (input.affiliateReservation?.providerId !== undefined)
    errors.push({ field: "affiliateReservation.providerId", message: "must not be sent: a network quote asks every provider (narrow it with providers)" });
  const checked = validateSendTrip({
    ...tripFieldsOf(input),
    reservationType: "QUOTE",
    passengers: input.passengers ?? NO_PASSENGERS,
    affiliateReservation: { requesterId: caller.netid, requesterResNo: "network-quote", providerId: "network", action: "NEW" },
  });
  if (!checked.ok) errors.push(...checked.errors);

  let providers: Set<string> | undefined;
  if (input.providers !== undefined) {
    if (!Array.isArray(input.providers) || input.providers.length === 0 || input.providers.length > MAX_NAMED_PROVIDERS)
      errors.push({ field: "providers", message: `must list 1 to ${MAX_NAMED_PROVIDERS} provider netids` });
    else {
      providers = new Set();
      for (const [i, raw] of input.providers.entries()) {
        const netid = typeof raw === "string" ? raw.trim() : "";
        const company = NETID_PATTERN.test(netid) ? await deps.companies.findByNetid(netid) : undefined;
        if (!company) errors.push({ field: `providers[${i}]`, message: `no registered company has netid ${netid}` });
        else providers.add(company.netid.toLowerCase());
      }
    }
  }
  if (input.partnersOnly !== undefined && typeof input.partnersOnly !== "boolean") errors.push({ field: "partnersOnly", message: "must be true or false" });
  if (errors.length > 0) throw new ValidationError(errors);
  if (!checked.ok || checked.value.action !== "NEW") throw new ValidationError([{ field: "affiliateReservation.action", message: "must be NEW" }]);
  return { req: checked.value, providers, partnersOnly: input.partnersOnly === true };
}

/** The trip fields of a quote request as sent (what a booking of an option starts from). */
function tripFieldsOf(input: NetworkQuoteInput): Record<string, unknown> {
  const trip: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(input)) if (!NOT_TRIP.has(key)) trip[key] = value;
  return trip;
}
