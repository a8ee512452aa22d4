import { minorUnitOf, toTenThousandths, type CurrencyDirectory } from "../currency";
import { isoAt, type QuoteOption } from "../trips/booking";
import {
  currencyOfCounts,
  feeOfTenThousandths,
  MAX_QUOTE_OPTIONS,
  NO_VEHICLE_FITS_TRIP,
  NO_VEHICLE_NEAR_PICKUP,
  otherCurrenciesLeftOut,
  QUOTE_VALIDITY_SECONDS,
  quoteOptionOf,
  quoteQuarterHours,
  type PricedQuote,
  type QuoteBuildRequest,
} from "../trips/quote";
import type { ServingSet } from "../trips/serving-set";
import type { TripWarning } from "../trips/warnings";
import type { CardTripFacts } from "./priced-quote";
import { pricedTrip } from "./priced-quote";
import { cardQuote, vehicleRateBreakdown, type CompiledCard } from "./pricing";
import { extraNotOffered, unpricedVehicles } from "./trip-extras";

/**
 * quoteWithCard (priced-quote.ts) over a serving set's columns, with its answer — the same options in the same order,
 * currency and warnings — at a cost that follows the serving vehicles without reading them whole (CONTRACT §19.8):
 * each (type, rate) priced once by the card, the best 20 kept as the vehicles stream by (preferred type, fee, code),
 * only those read whole with their breakdown.
 */
export function quoteServingSetWithCard(
  set: ServingSet,
  request: QuoteBuildRequest,
  facts: CardTripFacts,
  card: CompiledCard,
  currencies: CurrencyDirectory,
): PricedQuote {
  const n = set.size;
  if (n === 0) return { options: [], currency: null, warnings: [{ ...NO_VEHICLE_NEAR_PICKUP }] };
  const { rate, seats, luggage, type, rates, types } = set;
  const pax = request.passengerCount;
  const bags = request.luggageCount;
  const fits = new Uint8Array(n);
  const perRate = new Int32Array(rates.length);
  let fitting = 0;
  for (let i = 0; i < n; i++) {
    if (seats[i] < pax || (bags !== undefined && (luggage[i] < 0 || luggage[i] < bags))) continue;
    fits[i] = 1;
    perRate[rate[i]]++;
    fitting++;
  }
  if (fitting === 0) return { options: [], currency: null, warnings: [{ ...NO_VEHICLE_FITS_TRIP }] };
  const perCurrency = new Map<string, number>();
  rates.forEach((r, k) => perRate[k] > 0 && perCurrency.set(r.currency, (perCurrency.get(r.currency) ?? 0) + perRate[k]));
  const currency = currencyOfCounts(perCurrency, request.country, currencies)!;
  const inCurrency = perCurrency.get(currency)!;
  const warnings: TripWarning[] = [];
  if (fitting > inCurrency) warnings.push(otherCurrenciesLeftOut(fitting - inCurrency, [...perCurrency.keys()].filter((c) => c !== currency).sort(), currency));

  const digits = minorUnitOf(currencies, currency);
  const usable = card.currency === currency ? card : undefined;
  const trip = pricedTrip(request, facts, usable);
  const pricer = usable && trip ? cardQuote(usable, trip) : undefined;
  const missing = pricer ? pricer.missingExtras : facts.extras.map((x) => x.code);
  if (missing.length > 0) return { options: [], currency: null, warnings: [...warnings, extraNotOffered(inCurrency, missing)] };

  const quarterHours = quoteQuarterHours(request);
  const R = rates.length;
  const own = new Float64Array(R).fill(-1);
  rates.forEach((r, k) => {
    if (perRate[k] > 0 && r.currency === currency)
      own[k] = feeOfTenThousandths(toTenThousandths(r.minimumRate) ?? 0, toTenThousandths(r.hourlyRate) ?? 0, quarterHours, digits);
  });
  // Each (type, rate) priced once.
  const priced = new Map<number, number>();
  const unitsOf = (i: number): number => {
    const r = rate[i];
    if (!pricer) return own[r];
    const key = type[i] * R + r;
    let u = priced.get(key);
    if (u === undefined) priced.set(key, (u = pricer.units(types[type[i]], own[r])));
    return u;
  };
  const preferred = request.preferredVehType;
  const rankOf = (i: number) => (preferred !== undefined && types[type[i]] === preferred ? 0 : 1);
  const kept: Array<{ i: number; rank: number; units: number }> = [];
  const before = (a: { i: number; rank: number; units: number }, b: { i: number; rank: number; units: number }) =>
    a.rank - b.rank || a.units - b.units || set.compareCodes(a.i, b.i);
  let unpriced = 0;
  for (let i = 0; i < n; i++) {
    if (fits[i] === 0 || own[rate[i]] < 0) continue;
    const units = unitsOf(i);
    if (units <= 0) {
      unpriced++;
      continue;
    }
    const c = { i, rank: rankOf(i), units };
    if (kept.length === MAX_QUOTE_OPTIONS && before(c, kept[MAX_QUOTE_OPTIONS - 1]) >= 0) continue;
    let at = kept.length;
    while (at > 0 && before(c, kept[at - 1]) < 0) at--;
    kept.splice(at, 0, c);
    if (kept.length > MAX_QUOTE_OPTIONS) kept.pop();
  }
  if (unpriced > 0) warnings.push(unpricedVehicles(unpriced));
  const validUntil = isoAt(request.now + QUOTE_VALIDITY_SECONDS);
  const options: QuoteOption[] = kept.map(({ i, units }) => {
    const o = quoteOptionOf(set.vehicle(i), units, digits, validUntil);
    return { ...o, breakdown: pricer ? pricer.price(types[type[i]], own[rate[i]]).lines : vehicleRateBreakdown(units, digits) };
  });
  return { options, currency: options.length > 0 ? currency : null, warnings };
}
