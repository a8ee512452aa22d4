import { ConflictError, NotFoundError, ValidationError, type FieldError } from "../errors";
import { canonicalJson } from "../shared/canonical-json";
import { isoAt, type Fee, type QuotedOrigin, type Terms } from "../trips/booking";
import { pricedDifferences, QUOTE_TIME_TOLERANCE_SECONDS, quoteTripMismatch, type PricedTripSource } from "../trips/quote-binding";
import type { NewTrip, NewTripRequest } from "../trips/send-trip-request";
import { optionFeeLine, type NetworkQuote, type NetworkQuoteOption } from "./network-quote";
import { minorUnitOf, minorUnitProblem } from "../currency";
import { amountParts } from "../money";
import type { MinorUnits } from "../trips/booking-amounts";
import type { NetworkQuoteRepository } from "./ports";

/** Canonical JSON of a checked trip's priced fields: a booking of the quote must ask for the same. */
export function pricedTripOf(req: Pick<NewTrip, "trip">): string {
  const t = req.trip;
  const { locations, passengerCount } = t;
  const extras = (t as PricedTripSource).extras ?? t.extra?.extras;
  return canonicalJson({
    locations,
    passengerCount,
    luggageCount: t.luggageCount ?? null,
    totalTripDuration: t.totalTripDuration ?? null,
    ...(t.runType !== undefined ? { runType: t.runType } : {}),
    ...(extras !== undefined ? { extras } : {}),
  });
}

/**
 * The priced fields in which a booking's trip differs from the network quote's
 * (docs/integration.md#the-price-is-bound-to-the-trip), pickup time within 60 minutes.
 */
export function quotedTripDifferences(quote: Pick<NetworkQuote, "pricedTrip">, req: Pick<NewTrip, "trip">): FieldError[] {
  let quoted: PricedTripSource;
  try {
    quoted = JSON.parse(quote.pricedTrip) as PricedTripSource;
  } catch {
    quoted = {};
  }
  return pricedDifferences(quoted, req.trip, { toleranceSeconds: QUOTE_TIME_TOLERANCE_SECONDS });
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A network quote of the caller's company; anyone else's, and an unknown id, are the same 404. */
export async function findNetworkQuote(deps: { quotes: NetworkQuoteRepository }, caller: { netid: string }, quoteId: string): Promise<NetworkQuote> {
  const quote = UUID.test(quoteId) ? await deps.quotes.find(quoteId.toLowerCase()) : undefined;
  if (!quote || quote.makerNetid.toLowerCase() !== caller.netid.toLowerCase()) throw new NotFoundError("No network quote with this quoteId", "QUOTE_NOT_FOUND");
  return quote;
}

/** What booking a network quote's option fixes: the one fee line and the price. */
export interface QuotedChoice {
  fees: Fee[];
  totalAmount: string;
  /** The option booked (the booking's fee lines are then the provider's). */
  quoted: QuotedOrigin;
  /** The changeLogs words for it. */
  described: string;
  /** The terms the option was quoted with (docs/terms.md#policies), when it carries them. */
  terms?: Terms;
  /** The quote expired: refused unless the booking already exists with this content. */
  expired?: ConflictError;
}

/**
 * The option of the caller's network quote a NEW books: a REGULAR or ONDEMAND trip for the same pickup, drop-off,
 * stops, party, extras and duration, the pickup time within 60 minutes (409 QUOTE_TRIP_MISMATCH naming the fields
 * otherwise), the option of this provider named by `fees[0].code` (400 naming it otherwise). After validUntil: 409
 * QUOTE_EXPIRED, which the caller raises only when the booking does not exist yet (a repeat is answered as before).
 */
export function quotedChoice(quote: NetworkQuote, req: NewTripRequest, providerNetid: string, now: number, units: MinorUnits): QuotedChoice {
  const errors: FieldError[] = [];
  if (req.trip.reservationType === "QUOTE") errors.push({ field: "reservationType", message: "must be REGULAR or ONDEMAND to book a network quote's option" });
  const code = req.trip.fees[0]?.code;
  const option = code ? quote.options.find((o) => o.provider.netid.toLowerCase() === providerNetid.toLowerCase() && o.code === code) : undefined;
  if (!code) errors.push({ field: "fees[0].code", message: "is required with quoteId: the code of the option to book" });
  else if (!option) errors.push({ field: "fees[0].code", message: `is not an option of this quote from ${providerNetid}` });
  const capProblem = option && req.fallback ? maxFeeProblem(req.fallback.maxFee, option, units) : undefined;
  if (capProblem) errors.push({ field: "fallback.maxFee", message: capProblem });
  if (errors.length > 0) throw new ValidationError(errors);
  // The price is bound to the quoted trip: another place, party, duration or extras is 409 naming the fields.
  const mismatch = quotedTripDifferences(quote, req);
  if (mismatch.length > 0) throw quoteTripMismatch(mismatch, { quoteId: quote.quoteId });
  const validUntil = isoAt(quote.validUntil);
  const expired =
    now > quote.validUntil
      ? new ConflictError(`The quote expired at ${validUntil}; request a new quote`, "QUOTE_EXPIRED", { quoteId: quote.quoteId, validUntil })
      : undefined;
  return {
    fees: [optionFeeLine(option!, validUntil)],
    totalAmount: option!.fee,
    quoted: { code: option!.code, quoteId: quote.quoteId, ...(option!.converted ? { converted: option!.converted } : {}) },
    described: `network quote ${quote.quoteId}, option ${option!.code} at ${option!.fee} ${option!.currency}`,
    ...(option!.terms ? { terms: option!.terms } : {}),
    ...(expired ? { expired } : {}),
  };
}

/**
 * Why `fallback.maxFee` is no amount of the currency it caps, or undefined (docs/terms.md#the-cascade-fallback): that
 * is the booked option's converted currency when the quote showed it converted, else the option's own, and the cap has
 * at most its minor unit's decimals (JPY `"100.5"` is refused, as any JPY amount with decimals is).
 */
function maxFeeProblem(maxFee: string, option: NetworkQuoteOption, units: MinorUnits): string | undefined {
  const currency = option.converted?.currency ?? option.currency;
  const parts = amountParts(maxFee);
  if (!parts || parts.decimals.length <= minorUnitOf(units, currency)) return undefined;
  const problem = minorUnitProblem(parts.decimals.length, currency) ?? `has too many decimals for ${currency}`;
  return `${problem} (the cap is in the booked option's currency, ${currency})`;
}
