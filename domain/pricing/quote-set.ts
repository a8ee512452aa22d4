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
} from "./quote";
import type { ServingRate, ServingSet } from "../fleet/serving-set";
import type { TripWarning } from "../trips/warnings";

/** Each rate's amounts read once (a serving set from the index hands out the same rate objects quote after quote). */
const readRates = new WeakMap<ServingRate, { minimum: number; hourly: number }>();

export function amountsOf(rate: ServingRate): { minimum: number; hourly: number } {
  let amounts = readRates.get(rate);
  if (!amounts) readRates.set(rate, (amounts = { minimum: toTenThousandths(rate.minimumRate) ?? 0, hourly: toTenThousandths(rate.hourlyRate) ?? 0 }));
  return amounts;
}

/**
 * buildQuote over a serving set, with exactly its answer (the same options in the same order, the same currency and
 * warnings; a property test holds them equal) at a cost that follows the vehicles serving the pickup without
 * materialising them: fitting vehicles are counted per distinct rate (so per currency), each rate of the quote's
 * currency is priced once, the fee of the MAX_QUOTE_OPTIONS-th option found from the counts per (preferred type,
 * fee), so one more pass keeps the vehicles before it and, among those at it, the first codes; only the options
 * kept are read whole.
 */
export function quoteServingSet(set: ServingSet, request: QuoteBuildRequest, currencies: CurrencyDirectory): PricedQuote {
  const n = set.size;
  if (n === 0) return { options: [], currency: null, warnings: [{ ...NO_VEHICLE_NEAR_PICKUP }] };
  const { rate, seats, luggage, type, rates } = set;
  const pax = request.passengerCount;
  const bags = request.luggageCount;
  const preferred = new Uint8Array(set.types.length);
  if (request.preferredVehType !== undefined) set.types.forEach((t, k) => (preferred[k] = t === request.preferredVehType ? 1 : 0));
  // Fitting vehicles (seat the party and, when luggage is given, hold it) counted per rate, preferred type first.
  const fits = new Uint8Array(n);
  const R = rates.length;
  const perRate = new Int32Array(2 * R);
  let fitting = 0;
  for (let i = 0; i < n; i++) {
    if (seats[i] < pax) continue;
    if (bags !== undefined && (luggage[i] < 0 || luggage[i] < bags)) continue;
    fits[i] = 1;
    perRate[preferred[type[i]] === 1 ? rate[i] : R + rate[i]]++;
    fitting++;
  }
  if (fitting === 0) return { options: [], currency: null, warnings: [{ ...NO_VEHICLE_FITS_TRIP }] };

  const perCurrency = new Map<string, number>();
  for (let r = 0; r < R; r++) {
    const count = perRate[r] + perRate[R + r];
    if (count > 0) perCurrency.set(rates[r].currency, (perCurrency.get(rates[r].currency) ?? 0) + count);
  }
  const currency = currencyOfCounts(perCurrency, request.country, currencies)!;
  const warnings: TripWarning[] = [];
  const leftOut = fitting - perCurrency.get(currency)!;
  if (leftOut > 0) warnings.push(otherCurrenciesLeftOut(leftOut, [...perCurrency.keys()].filter((c) => c !== currency).sort(), currency));

  // Each rate of the quote's currency priced once (−1: another currency's, or no fitting vehicle has it).
  const digits = minorUnitOf(currencies, currency);
  const quarterHours = quoteQuarterHours(request);
  const units = new Float64Array(R).fill(-1);
  // (rank, fee, count) of every rate in the currency, ordered: where the MAX_QUOTE_OPTIONS-th option lies.
  const groups: Array<{ rank: number; units: number; count: number }> = [];
  for (let r = 0; r < R; r++) {
    if (perRate[r] + perRate[R + r] === 0 || rates[r].currency !== currency) continue;
    const { minimum, hourly } = amountsOf(rates[r]);
    units[r] = feeOfTenThousandths(minimum, hourly, quarterHours, digits);
    if (perRate[r] > 0) groups.push({ rank: 0, units: units[r], count: perRate[r] });
    if (perRate[R + r] > 0) groups.push({ rank: 1, units: units[r], count: perRate[R + r] });
  }
  const { rank: cutRank, units: cutUnits, before } = quoteCut(groups);

  // Those ahead of the cut all kept (fewer than MAX_QUOTE_OPTIONS); those at it by code, the first ones only.
  const ahead: number[] = [];
  const atCut: number[] = [];
  const room = MAX_QUOTE_OPTIONS - before;
  for (let i = 0; i < n; i++) {
    if (fits[i] === 0) continue;
    const u = units[rate[i]];
    if (u < 0) continue;
    const rank = preferred[type[i]] === 1 ? 0 : 1;
    if (rank < cutRank || (rank === cutRank && u < cutUnits)) ahead.push(i);
    else if (rank === cutRank && u === cutUnits) {
      if (atCut.length === room && set.compareCodes(i, atCut[room - 1]) >= 0) continue;
      let k = atCut.length;
      while (k > 0 && set.compareCodes(i, atCut[k - 1]) < 0) k--;
      atCut.splice(k, 0, i);
      if (atCut.length > room) atCut.pop();
    }
  }
  const rankOf = (i: number) => (preferred[type[i]] === 1 ? 0 : 1);
  ahead.sort((a, b) => rankOf(a) - rankOf(b) || units[rate[a]] - units[rate[b]] || set.compareCodes(a, b));
  const validUntil = isoAt(request.now + QUOTE_VALIDITY_SECONDS);
  const options: QuoteOption[] = [...ahead, ...atCut].map((i) => quoteOptionOf(set.vehicle(i), units[rate[i]], digits, validUntil));
  return { options, currency, warnings };
}

/**
 * Where the MAX_QUOTE_OPTIONS-th option of a quote lies, from the count of candidates per (rank, fee) — rank 0 the
 * preferred type — in `groups` (sorted here): the (rank, fee) of the last option kept (Infinity when fewer than that
 * many), and how many candidates rank strictly before it. The candidates before the cut are all kept; of those at
 * it, the first codes fill the rest. A caller's pass over its vehicles keeps them (it stays inline there: it reads
 * every serving vehicle).
 */
export function quoteCut(groups: Array<{ rank: number; units: number; count: number }>): { rank: number; units: number; before: number } {
  groups.sort((a, b) => a.rank - b.rank || a.units - b.units);
  let before = 0;
  for (let g = 0; g < groups.length; ) {
    // Groups with the same rank and fee are one place in the order.
    let k = g;
    let upTo = before;
    while (k < groups.length && groups[k].rank === groups[g].rank && groups[k].units === groups[g].units) upTo += groups[k++].count;
    if (upTo >= MAX_QUOTE_OPTIONS) return { rank: groups[g].rank, units: groups[g].units, before };
    before = upTo;
    g = k;
  }
  return { rank: Infinity, units: Infinity, before };
}
