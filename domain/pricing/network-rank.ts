import { formatMinorUnits, minorUnitOf, type CurrencyDirectory } from "../currency";
import type { CircleMatches } from "../fleet/ports";
import { vehicleRateBreakdown } from "./card-pricing";
import { vehicleFeeMinorUnits } from "./quote";
import { cardPricing, type ProviderCard } from "./network-cards";
import { MAX_NETWORK_OPTIONS, MAX_OPTIONS_PER_PROVIDER, type OptionEntry, type PricedVehicle } from "./network-quote";

/**
 * The network quote's ranking over the geo index's columns (the fast path): the same options, order, currency and
 * left-out count as pricing every serving vehicle and ranking them whole (chooseNetworkCurrency, then
 * rankNetworkOptions over the quote's currency), without an object per vehicle. Each distinct rate is priced once;
 * each provider keeps its best 5 as the vehicles stream by, and the best 50 of those are kept the same way; only
 * the chosen ones are materialised.
 */

/** What each provider (by owner number) brings to the ranking, decided before it (admission, radius, partner map). */
export interface ProviderTerms {
  /** 1 when the provider would take the trip from the caller (and is among those asked). */
  admitted: Uint8Array;
  /** Its service radius: a match farther than this does not serve the pickup. */
  radiusKm: Float64Array;
  /** The provider's type for the caller's preferred type, when mapped: its options of that type rank first among its own. */
  preferredType: Array<string | undefined>;
  /** Per provider, its vehicles held over the trip (docs/availability.md): left out. */
  busy?: Array<ReadonlySet<string> | undefined>;
}

/** A serving vehicle the circle does not hold (one listing the pickup airport beyond its provider's radius, or without a position). */
export interface ExtraVehicle {
  entry: OptionEntry;
  owner: number;
  distanceKm: number;
}

export interface CircleRanking {
  /** The quote's currency (undefined without any serving vehicle). */
  currency: string | undefined;
  /** The options, best first (at most 5 per provider, 50 in all). */
  chosen: PricedVehicle[];
  /** Serving vehicles in other currencies, and those currencies (alphabetical). */
  leftOut: number;
  leftOutCurrencies: string[];
  /** Serving vehicles in the quote's currency priced at 0, left out (UNPRICED_VEHICLES). */
  unpriced?: number;
}

export interface RankInput {
  matches: CircleMatches;
  extras: readonly ExtraVehicle[];
  /** The netid of an owner number (those of `matches`, then the extras' own). */
  netidOf: (owner: number) => string;
  terms: ProviderTerms;
  quarterHours: number;
  pickupCurrency: string | undefined;
  currencies: CurrencyDirectory;
  /**
   * Ranking across currencies (docs/fx.md#what-a-network-quote-shows): every serving vehicle is a candidate whatever its currency, ranked by
   * its fee in `units` of one currency (the FX table's conversion); a currency `units` cannot convert ranks after
   * the others. Without it, one currency is chosen and the others are left out (the provider QUOTE's rule).
   */
  fx?: { units(minorUnits: number, currency: string): number | undefined };
  /** Per owner number, its rate card prepared for the trip (docs/rates.md#how-a-vehicle-is-priced); absent: every vehicle at its own rates. */
  cards?: ReadonlyArray<ProviderCard | undefined>;
  /** The trip asks extras: a provider whose card is in another currency than the quote's cannot price them. */
  extrasAsked?: boolean;
}

/** Added to the rank of a fee with no FX rate: after every converted one, whatever its amount. */
const NO_RATE_RANK = 2 ** 50;

const compareStrings = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

export function rankCircle(input: RankInput): CircleRanking {
  const { matches: m, extras, terms, quarterHours, currencies } = input;
  const n = m.count;
  const { owner, rate, distanceKm } = m;
  const { admitted, radiusKm } = terms;
  const held = terms.busy;
  const isBusy = (i: number): boolean => held !== undefined && held[owner[i]] !== undefined && held[owner[i]]!.has(m.slug(i));

  // Currencies interned per rate; serving vehicles counted per currency.
  const currencyOfRate = new Int32Array(m.rates).fill(-1);
  const currencyIds = new Map<string, number>();
  const currencyNames: string[] = [];
  const counts: number[] = [];
  const currencyId = (code: string): number => {
    let id = currencyIds.get(code);
    if (id === undefined) {
      currencyIds.set(code, (id = currencyNames.length));
      currencyNames.push(code);
      counts.push(0);
    }
    return id;
  };
  const matchCurrency = (i: number): number => {
    const r = rate[i];
    let c = currencyOfRate[r];
    if (c < 0) currencyOfRate[r] = c = currencyId(m.currency(r));
    return c;
  };
  const serves = (i: number): boolean => {
    const o = owner[i];
    return admitted[o] === 1 && distanceKm[i] <= radiusKm[o] && !isBusy(i);
  };
  for (let i = 0; i < n; i++) if (serves(i)) counts[matchCurrency(i)]++;
  const extraCurrency = extras.map((x) => (admitted[x.owner] === 1 ? currencyId(x.entry.currency) : -1));
  for (const c of extraCurrency) if (c >= 0) counts[c]++;

  // The pickup country's currency when some serving vehicle uses it, else the most used (ties: alphabetical).
  let chosen = -1;
  const local = input.pickupCurrency !== undefined ? currencyIds.get(input.pickupCurrency) : undefined;
  if (local !== undefined && counts[local] > 0) chosen = local;
  else
    for (let c = 0; c < counts.length; c++)
      if (counts[c] > 0 && (chosen < 0 || counts[c] > counts[chosen] || (counts[c] === counts[chosen] && currencyNames[c] < currencyNames[chosen]))) chosen = c;
  if (chosen < 0) return { currency: undefined, chosen: [], leftOut: 0, leftOutCurrencies: [] };
  const currency = currencyNames[chosen];
  let leftOut = 0;
  const others: string[] = [];
  const fx = input.fx;
  const priced = (c: number): boolean => c === chosen || (fx !== undefined && c >= 0);
  for (let c = 0; c < counts.length; c++)
    if (!priced(c) && counts[c] > 0) {
      leftOut += counts[c];
      others.push(currencyNames[c]);
    }
  others.sort(compareStrings);

  // Candidates: match i < n, extra n + j. Units per rate priced once, in the quote currency's minor unit.
  // With fx, `units` (what ranks) is the fee converted, and `own` the fee in its own currency's minor units.
  const digitsOf = currencyNames.map((code) => minorUnitOf(currencies, code));
  const rankUnits = (own: number, c: number): number => {
    if (!fx || own < 0) return own;
    const converted = fx.units(own, currencyNames[c]);
    return converted === undefined ? NO_RATE_RANK + own : converted;
  };
  const ownOfRate = new Float64Array(m.rates).fill(-1);
  const unitsOfRate = new Float64Array(m.rates).fill(-1);
  for (let r = 0; r < m.rates; r++)
    if (priced(currencyOfRate[r])) {
      const c = currencyOfRate[r];
      ownOfRate[r] = vehicleFeeMinorUnits({ minimumRate: m.minimumRate(r), hourlyRate: m.hourlyRate(r) }, quarterHours, digitsOf[c]);
      unitsOfRate[r] = rankUnits(ownOfRate[r], c);
    }
  const total = n + extras.length;
  const units = new Float64Array(total);
  const own = new Float64Array(total);
  const currencyOf = new Int32Array(total);
  const dist = new Float64Array(total);
  const ownerOf = new Uint32Array(total);
  // Providers with a rate card price each vehicle by it (per type); the fast path's groups by rate then do not hold.
  // Across currencies (fx), a card prices the vehicles in its own currency; else those in the quote's.
  const cards = input.cards ? cardPricing(input.cards, fx ? undefined : currency, input.extrasAsked === true) : undefined;
  const touched = cards?.touched;
  const carded = touched !== undefined && touched.includes(1);
  for (let i = 0; i < n; i++) {
    units[i] = unitsOfRate[rate[i]];
    own[i] = ownOfRate[rate[i]];
    currencyOf[i] = currencyOfRate[rate[i]];
    dist[i] = distanceKm[i];
    ownerOf[i] = owner[i];
  }
  extras.forEach((x, j) => {
    const c = extraCurrency[j];
    own[n + j] = priced(c) ? vehicleFeeMinorUnits(x.entry, quarterHours, digitsOf[c]) : -1;
    units[n + j] = rankUnits(own[n + j], c);
    currencyOf[n + j] = c;
    dist[n + j] = x.distanceKm;
    ownerOf[n + j] = x.owner;
  });
  const slug = (i: number) => (i < n ? m.slug(i) : extras[i - n].entry.slug);
  const typeOf = (i: number) => (i < n ? m.type(i) : extras[i - n].entry.type);
  const anyPreferred = terms.preferredType.some((t) => t !== undefined);
  const preferred = (i: number): boolean => {
    if (!anyPreferred) return false;
    const wanted = terms.preferredType[ownerOf[i]];
    return wanted !== undefined && typeOf(i) === wanted;
  };

  // Each provider's best 5 (its mapped type first, then cheapest, nearest, by code), kept in a flat table as the
  // candidates stream by: most are turned away by one comparison with the provider's fifth.
  const withinProvider = (a: number, b: number): number =>
    (anyPreferred ? Number(preferred(b)) - Number(preferred(a)) : 0) || units[a] - units[b] || dist[a] - dist[b] || compareStrings(slug(a), slug(b));
  const owners = terms.admitted.length;
  const kept = new Int32Array(owners * MAX_OPTIONS_PER_PROVIDER);
  const keptCount = new Uint8Array(owners);
  const present: number[] = [];
  let keptTotal = 0;
  const offer = (i: number) => {
    const o = ownerOf[i];
    const base = o * MAX_OPTIONS_PER_PROVIDER;
    let k = keptCount[o];
    if (k === 0) present.push(o);
    if (k === MAX_OPTIONS_PER_PROVIDER) {
      if (withinProvider(i, kept[base + k - 1]) >= 0) return;
      k--;
    } else {
      keptCount[o] = k + 1;
      keptTotal++;
    }
    while (k > 0 && withinProvider(i, kept[base + k - 1]) < 0) {
      kept[base + k] = kept[base + k - 1];
      k--;
    }
    kept[base + k] = i;
  };
  // Then all of them: cheapest, nearest, by provider and code; at most 50.
  const across = (a: number, b: number): number =>
    units[a] - units[b] || dist[a] - dist[b] || compareStrings(input.netidOf(ownerOf[a]), input.netidOf(ownerOf[b])) || compareStrings(slug(a), slug(b));
  const best: number[] = [];
  // A fee of 0 is never offered (docs/rates.md#never-absurd-the-longest-trip-a-provider-quotes): counted, left out.
  const candidate = (i: number) => own[i] > 0 && admitted[owner[i]] === 1 && distanceKm[i] <= radiusKm[owner[i]] && !isBusy(i);
  let unpriced = 0;
  if (carded) offerByProvider();
  else {
    for (let i = 0; i < n; i++) if (own[i] === 0 && admitted[owner[i]] === 1 && distanceKm[i] <= radiusKm[owner[i]] && !isBusy(i)) unpriced++;
    for (let j = 0; j < extras.length; j++) if (priced(extraCurrency[j]) && own[n + j] === 0) unpriced++;
    if (anyPreferred) {
      for (let i = 0; i < n; i++) if (candidate(i)) offer(i);
      for (let j = 0; j < extras.length; j++) if (priced(extraCurrency[j]) && own[n + j] > 0) offer(n + j);
    } else offerCheapestFirst();
    for (const o of present) for (let k = 0; k < keptCount[o]; k++) insertBounded(best, kept[o * MAX_OPTIONS_PER_PROVIDER + k], MAX_NETWORK_OPTIONS, across);
  }

  /**
   * With rate cards (docs/performance.md#rate-cards-issue-35) a vehicle's fee is its provider's card's, so candidates cannot be grouped by rate.
   * Providers are taken by a lower bound of their fees instead (the cheapest their card can give, CardQuote.floor; the
   * exact fees of their vehicles without a card), nearest first among equal bounds: each one's vehicles priced and
   * offered, its best added to the 50. Once 50 are kept, a provider whose bound and nearest vehicle rank after the 50th
   * could add none, nor could any after it: their cards are never prepared. Their fees are at least that bound, above
   * 0, so none of them is an unpriced vehicle either.
   */
  function offerByProvider(): void {
    const owners = terms.admitted.length;
    const bound = new Float64Array(owners).fill(Infinity);
    const ownFloor = new Float64Array(owners).fill(Infinity);
    const cardCurrency = new Int32Array(owners).fill(-1);
    const nearest = new Float64Array(owners).fill(Infinity);
    const count = new Int32Array(owners);
    // Per vehicle: 1 priced by its card, 0 by its own rates, -1 not a candidate.
    const mode = new Int8Array(total).fill(-1);
    for (let i = 0; i < total; i++) {
      if (own[i] < 0 || (i < n && !(admitted[owner[i]] === 1 && distanceKm[i] <= radiusKm[owner[i]] && !isBusy(i)))) continue;
      const o = ownerOf[i];
      const how = touched![o] === 1 ? cards!.kind(o, currencyNames[currencyOf[i]]) : 0;
      if (how < 0) continue;
      mode[i] = how;
      count[o]++;
      if (dist[i] < nearest[o]) nearest[o] = dist[i];
      if (how === 1) {
        if (own[i] < ownFloor[o]) ownFloor[o] = own[i];
        cardCurrency[o] = currencyOf[i];
      } else if (units[i] < bound[o]) bound[o] = units[i];
    }
    const order: number[] = [];
    for (let o = 0; o < owners; o++) {
      if (count[o] === 0) continue;
      if (cardCurrency[o] >= 0) bound[o] = Math.min(bound[o], rankUnits(cards!.floor(o, ownFloor[o]), cardCurrency[o]));
      order.push(o);
    }
    order.sort((a, b) => bound[a] - bound[b] || nearest[a] - nearest[b]);
    // Each provider's candidates, by counting sort over owner numbers.
    const start = new Int32Array(owners + 1);
    for (let o = 0; o < owners; o++) start[o + 1] = start[o] + count[o];
    const fill = start.slice(0, owners);
    const byOwner = new Int32Array(start[owners]);
    for (let i = 0; i < total; i++) if (mode[i] >= 0) byOwner[fill[ownerOf[i]]++] = i;
    for (const o of order) {
      if (best.length === MAX_NETWORK_OPTIONS) {
        const last = best[MAX_NETWORK_OPTIONS - 1];
        if (bound[o] > units[last] || (bound[o] === units[last] && nearest[o] > dist[last])) return;
      }
      for (let k = start[o]; k < start[o + 1]; k++) {
        const i = byOwner[k];
        if (mode[i] === 1) {
          own[i] = cards!.units(o, typeOf(i), own[i], currencyNames[currencyOf[i]]);
          units[i] = rankUnits(own[i], currencyOf[i]);
        }
        if (own[i] === 0) unpriced++;
        else if (own[i] > 0) offer(i);
      }
      for (let k = 0; k < keptCount[o]; k++) insertBounded(best, kept[o * MAX_OPTIONS_PER_PROVIDER + k], MAX_NETWORK_OPTIONS, across);
    }
  }

  /**
   * Without a preferred type a provider's order is the quote's order, so the candidates can be offered by price,
   * cheapest first (grouped by rate, each group all at once): once 50 are kept, a dearer candidate could only
   * follow its provider's kept ones and the 50 kept before it, so the groups left need not be looked at.
   */
  function offerCheapestFirst(): void {
    const perRate = new Int32Array(m.rates + 1);
    for (let i = 0; i < n; i++) if (candidate(i)) perRate[rate[i]]++;
    const rates: number[] = [];
    for (let r = 0; r < m.rates; r++) if (perRate[r] > 0) rates.push(r);
    rates.sort((a, b) => unitsOfRate[a] - unitsOfRate[b]);
    const start = new Int32Array(m.rates + 1);
    let at = 0;
    for (const r of rates) {
      start[r] = at;
      at += perRate[r];
    }
    const order = new Int32Array(at);
    const fill = start.slice();
    for (let i = 0; i < n; i++) if (candidate(i)) order[fill[rate[i]]++] = i;
    // Groups: each rate's candidates, and each extra on its own, by units.
    const groups: Array<{ units: number; rate: number; extra: number }> = rates.map((r) => ({ units: unitsOfRate[r], rate: r, extra: -1 }));
    for (let j = 0; j < extras.length; j++) if (priced(extraCurrency[j]) && own[n + j] > 0) groups.push({ units: units[n + j], rate: -1, extra: n + j });
    groups.sort((a, b) => a.units - b.units);
    for (let g = 0; g < groups.length; g++) {
      const group = groups[g];
      if (group.rate < 0) offer(group.extra);
      else for (let k = start[group.rate], end = k + perRate[group.rate]; k < end; k++) offer(order[k]);
      if (keptTotal >= MAX_NETWORK_OPTIONS && (g + 1 === groups.length || groups[g + 1].units > group.units)) return;
    }
  }

  const chosenVehicles = best.map((i): PricedVehicle => {
    const u = own[i];
    const entry = i < n ? m.entry(i) : extras[i - n].entry;
    const code = currencyNames[currencyOf[i]];
    const digits = digitsOf[currencyOf[i]];
    // Its breakdown: the card's lines (its own formula as the base when no card rate applies), else one line.
    const base = i < n ? ownOfRate[rate[i]] : vehicleFeeMinorUnits(entry, quarterHours, digits);
    const breakdown = cards && touched![ownerOf[i]] === 1 ? cards.lines(ownerOf[i], entry.type, base, u, digits, code) : vehicleRateBreakdown(u, digits);
    return { entry, minorUnits: u, fee: formatMinorUnits(u, digits), distanceKm: dist[i], preferred: preferred(i), breakdown };
  });
  return { currency, chosen: chosenVehicles, leftOut, leftOutCurrencies: others, unpriced };
}

/** Inserts `i` into `list` (kept sorted by `order`, at most `max` long) when it ranks among the best `max`. */
function insertBounded(list: number[], i: number, max: number, order: (a: number, b: number) => number): void {
  if (list.length === max && order(i, list[max - 1]) >= 0) return;
  let at = list.length;
  while (at > 0 && order(i, list[at - 1]) < 0) at--;
  list.splice(at, 0, i);
  if (list.length > max) list.pop();
}
