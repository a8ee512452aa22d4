import type { AirportDirectory } from "../airports";
import type { QuotableVehicle } from "../fleet/entry";
import { minorUnitOf, type CurrencyDirectory } from "../currency";
import { isoAt, type QuoteOption } from "../trips/booking";
import {
  MAX_QUOTE_OPTIONS,
  QUOTE_VALIDITY_SECONDS,
  quoteOptionOf,
  quoteQuarterHours,
  quotableInCurrency,
  vehicleFeeMinorUnits,
  type PricedQuote,
  type QuoteBuildRequest,
} from "./quote";
import type { StoredRateCard } from "./ports";
import { cardQuote, cardRoadKm, compileCard, tripClock, type CompiledCard, type PricedTrip } from "./card-pricing";
import { extraNotOffered, noCardShortfalls, unpricedVehicles, type AskedExtra } from "./trip-extras";

/** What a card prices besides the fleet's own quote request: the trip's places, clock and extras. */
export interface CardTripFacts {
  pickupAirport?: string;
  dropOffAirport?: string;
  /** runType HOURLY (or a booked duration): hourly rates apply. */
  hourly: boolean;
  /** The pickup's local wall clock `YYYY-MM-DDTHH:mm`. */
  localTime?: string;
  extras: AskedExtra[];
  stops: number;
}

/** Each stored card compiled once (the repositories hand out the same object while it is current). */
const compiled = new WeakMap<StoredRateCard, CompiledCard>();

export function compiledCard(stored: StoredRateCard, currencies: Pick<CurrencyDirectory, "minorUnit">, airports: AirportDirectory): CompiledCard {
  let c = compiled.get(stored);
  if (!c) {
    c = compileCard(stored.card, minorUnitOf(currencies, stored.card.currency), (iata) => airports.lookup(iata));
    compiled.set(stored, c);
  }
  return c;
}

/** The trip as a card prices it. */
export function pricedTrip(request: QuoteBuildRequest, facts: CardTripFacts, card: CompiledCard | undefined): PricedTrip | undefined {
  if (!request.pickup) return undefined;
  const extras = [...facts.extras];
  // Each stop asks EXTRA_STOP only when the card prices it.
  if (facts.stops > 0 && card?.extras.has("EXTRA_STOP") && !extras.some((x) => x.code === "EXTRA_STOP"))
    extras.push({ code: "EXTRA_STOP", quantity: facts.stops });
  return {
    pickup: request.pickup,
    dropOff: request.dropOff,
    ...(request.stops && request.stops.length > 0 ? { stops: request.stops } : {}),
    ...(request.dropOff ? { roadKm: cardRoadKm(request.pickup, request.dropOff, request.stops) } : {}),
    ...(facts.pickupAirport ? { pickupAirport: facts.pickupAirport } : {}),
    ...(facts.dropOffAirport ? { dropOffAirport: facts.dropOffAirport } : {}),
    hourly: facts.hourly || request.tripMinutes !== undefined,
    quarterHours: quoteQuarterHours(request),
    ...(facts.localTime ? { localTime: facts.localTime, clock: tripClock(facts.localTime) } : {}),
    extras,
  };
}

/**
 * A provider's quote priced with its rate card (docs/rates.md#how-a-vehicle-is-priced): its vehicles that fit the trip, in one currency, each
 * priced by the card (hourly, route, distance band, else its own rates; surcharges, minimum fare, extras) with its
 * breakdown; a base of 0 is never offered (UNPRICED_VEHICLES); a card lacking an asked extra leaves every vehicle out
 * (EXTRA_NOT_OFFERED). Without a card, an asked extra leaves them out too; else each option is its own rates, one line.
 */
export function quoteWithCard(
  serving: readonly QuotableVehicle[],
  request: QuoteBuildRequest,
  facts: CardTripFacts,
  card: CompiledCard | undefined,
  currencies: CurrencyDirectory,
): PricedQuote {
  const chosen = quotableInCurrency(serving, request, currencies);
  if ("options" in chosen) return chosen;
  const { vehicles: inCurrency, currency, warnings } = chosen;
  const digits = minorUnitOf(currencies, currency);
  const usable = card && card.currency === currency ? card : undefined;
  const trip = pricedTrip(request, facts, usable);
  const pricer = usable && trip ? cardQuote(usable, trip) : undefined;
  const missing = pricer ? pricer.missingExtras : noCardShortfalls(facts.extras);
  if (missing.length > 0) return { options: [], currency: null, warnings: [...warnings, extraNotOffered(inCurrency.length, missing)] };
  const quarterHours = quoteQuarterHours(request);
  const validUntil = isoAt(request.now + QUOTE_VALIDITY_SECONDS);
  const priced: Array<{ units: number; entry: QuotableVehicle; rank: number; option: () => QuoteOption }> = [];
  let unpriced = 0;
  for (const entry of inCurrency) {
    const own = vehicleFeeMinorUnits(entry, quarterHours, digits);
    const p = pricer ? pricer.price(entry.type, own) : undefined;
    const units = p ? p.units : own;
    if (units <= 0) {
      unpriced++;
      continue;
    }
    const rank = request.preferredVehType !== undefined && entry.type === request.preferredVehType ? 0 : 1;
    priced.push({
      units,
      entry,
      rank,
      option: () => {
        const o = quoteOptionOf(entry, units, digits, validUntil);
        return { ...o, breakdown: p ? p.lines : [{ kind: "BASE", id: "vehicle-rate", name: "Vehicle rate", amount: o.fee }] };
      },
    });
  }
  if (unpriced > 0) warnings.push(unpricedVehicles(unpriced));
  priced.sort((a, b) => a.rank - b.rank || a.units - b.units || (a.entry.slug < b.entry.slug ? -1 : a.entry.slug > b.entry.slug ? 1 : 0));
  const options = priced.slice(0, MAX_QUOTE_OPTIONS).map((p) => p.option());
  return { options, currency: options.length > 0 ? currency : null, warnings };
}
