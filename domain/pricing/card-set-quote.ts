import { minorUnitOf, type CurrencyDirectory } from "../currency";
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
} from "./quote";
import { amountsOf, quoteCut } from "./quote-set";
import type { ServingSet } from "../fleet/serving-set";
import type { TripWarning } from "../trips/warnings";
import type { CardTripFacts } from "./priced-quote";
import { pricedTrip } from "./priced-quote";
import { cardQuote, vehicleRateBreakdown, type CompiledCard } from "./card-pricing";
import { extraNotOffered, noCardShortfalls, unpricedVehicles } from "./trip-extras";

/**
 * quoteWithCard (priced-quote.ts) over a serving set's columns, with its answer — the same options in the same order,
 * currency and warnings — at a cost that follows the serving vehicles without reading them whole (docs/performance.md#rate-cards-issue-35):
 * fitting vehicles counted per (type, rate) pair, each pair priced once by the card, the 20th option's place found
 * from those counts (as quoteServingSet does for the fleet's own rates), so one more pass keeps the vehicles before
 * it and, among those at it, the first codes; only those are read whole with their breakdown. `denseLimit`: the
 * most pairs counted in a table (more: in a map).
 */
export function quoteServingSetWithCard(
  set: ServingSet,
  request: QuoteBuildRequest,
  facts: CardTripFacts,
  card: CompiledCard,
  currencies: CurrencyDirectory,
  denseLimit = 1 << 18,
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
  const missing = pricer ? pricer.missingExtras : noCardShortfalls(facts.extras);
  if (missing.length > 0) return { options: [], currency: null, warnings: [...warnings, extraNotOffered(inCurrency, missing)] };

  const quarterHours = quoteQuarterHours(request);
  const R = rates.length;
  const own = new Float64Array(R).fill(-1);
  // Each rate's amounts read once per rate object (as quoteServingSet reads them).
  rates.forEach((r, k) => {
    if (perRate[k] === 0 || r.currency !== currency) return;
    const { minimum, hourly } = amountsOf(r);
    own[k] = feeOfTenThousandths(minimum, hourly, quarterHours, digits);
  });
  // Fitting vehicles of the quote's currency counted per (type, rate) pair (a table when it is small, else a map).
  const T = types.length;
  const dense = T * R <= denseLimit;
  const count = dense ? new Int32Array(T * R) : undefined;
  const counted = dense ? undefined : new Map<number, number>();
  const pairs: number[] = [];
  for (let i = 0; i < n; i++) {
    if (fits[i] === 0 || own[rate[i]] < 0) continue;
    const key = type[i] * R + rate[i];
    const seen = count ? count[key]++ : (counted!.get(key) ?? 0);
    if (counted) counted.set(key, seen + 1);
    if (seen === 0) pairs.push(key);
  }
  // Each pair priced once; (rank, fee, count) of each, ordered: where the MAX_QUOTE_OPTIONS-th option lies.
  const preferred = request.preferredVehType;
  const rankOfType = (t: number) => (preferred !== undefined && types[t] === preferred ? 0 : 1);
  const units = dense ? new Float64Array(T * R) : undefined;
  const unitsByPair = dense ? undefined : new Map<number, number>();
  const unitsOf = (i: number): number => {
    const key = type[i] * R + rate[i];
    return units ? units[key] : unitsByPair!.get(key)!;
  };
  const groups: Array<{ rank: number; units: number; count: number }> = [];
  let unpriced = 0;
  for (const key of pairs) {
    const t = Math.floor(key / R);
    const r = key - t * R;
    const u = pricer ? pricer.units(types[t], own[r]) : own[r];
    if (units) units[key] = u;
    else unitsByPair!.set(key, u);
    const c = count ? count[key] : counted!.get(key)!;
    if (u <= 0) unpriced += c;
    else groups.push({ rank: rankOfType(t), units: u, count: c });
  }
  const { rank: cutRank, units: cutUnits, before } = quoteCut(groups);
  // The pass keeping the options is written out as quoteServingSet's is, not shared: one helper for both, its vehicle
  // reads passed as functions, made this path's bench 1.25–1.30× the no-card one against 1.20–1.24× (docs/performance.md#rate-cards-issue-35).
  // Those ahead of the cut all kept (fewer than MAX_QUOTE_OPTIONS); those at it by code, the first ones only.
  const ahead: number[] = [];
  const atCut: number[] = [];
  const room = MAX_QUOTE_OPTIONS - before;
  for (let i = 0; i < n; i++) {
    if (fits[i] === 0 || own[rate[i]] < 0) continue;
    const u = unitsOf(i);
    if (u <= 0) continue;
    const rank = rankOfType(type[i]);
    if (rank < cutRank || (rank === cutRank && u < cutUnits)) ahead.push(i);
    else if (rank === cutRank && u === cutUnits) {
      if (atCut.length === room && set.compareCodes(i, atCut[room - 1]) >= 0) continue;
      let k = atCut.length;
      while (k > 0 && set.compareCodes(i, atCut[k - 1]) < 0) k--;
      atCut.splice(k, 0, i);
      if (atCut.length > room) atCut.pop();
    }
  }
  ahead.sort((a, b) => rankOfType(type[a]) - rankOfType(type[b]) || unitsOf(a) - unitsOf(b) || set.compareCodes(a, b));
  if (unpriced > 0) warnings.push(unpricedVehicles(unpriced));
  const validUntil = isoAt(request.now + QUOTE_VALIDITY_SECONDS);
  const options: QuoteOption[] = [...ahead, ...atCut].map((i) => {
    const o = quoteOptionOf(set.vehicle(i), unitsOf(i), digits, validUntil);
    return { ...o, breakdown: pricer ? pricer.price(types[type[i]], own[rate[i]]).lines : vehicleRateBreakdown(unitsOf(i), digits) };
  });
  return { options, currency: options.length > 0 ? currency : null, warnings };
}
