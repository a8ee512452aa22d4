import { formatMinorUnits, minorUnitOf } from "../currency";
import { vehicleRateBreakdown } from "./card-pricing";
import { vehicleFeeMinorUnits } from "./quote";
import { cardPricing } from "./network-cards";
import { MAX_NETWORK_OPTIONS, MAX_OPTIONS_PER_PROVIDER, type PricedVehicle } from "./network-quote";
import { compareStrings, currencyId, newRanking, preferred, priced, rankUnits, serves, slugOf, typeOf } from "./network-rank-state";
import type { CircleRanking, RankInput, Ranking } from "./network-rank-state";

export type { CircleRanking, ExtraVehicle, ProviderTerms, RankInput } from "./network-rank-state";

/**
 * The network quote's ranking over the geo index's columns (the fast path): the same options, order, currency and
 * left-out count as pricing every serving vehicle and ranking them whole (chooseNetworkCurrency, then
 * rankNetworkOptions over the quote's currency), without an object per vehicle. Each distinct rate is priced once;
 * each provider keeps its best 5 as the vehicles stream by, and the best 50 of those are kept the same way; only
 * the chosen ones are materialised.
 */


export function rankCircle(input: RankInput): CircleRanking {
  const s = admitServing(input);
  const currency = chooseCurrency(s);
  if (currency === undefined) return { currency: undefined, chosen: [], leftOut: 0, leftOutCurrencies: [] };
  const { leftOut, others } = leftOutOf(s);
  priceCandidates(s, currency);
  if (s.cards !== undefined && s.cards.touched.includes(1)) boundByProvider(s);
  else boundByRate(s);
  return { currency, chosen: materialise(s), leftOut, leftOutCurrencies: others, unpriced: s.unpriced };
}

/** Admit: the ranking's state, with the serving vehicles (and the admitted providers' extras) counted per currency. */
function admitServing(input: RankInput): Ranking {
  const s = newRanking(input);
  const { m, n, rate, currencyOfRate, counts } = s;
  for (let i = 0; i < n; i++)
    if (serves(s, i)) {
      const r = rate[i];
      let c = currencyOfRate[r];
      if (c < 0) currencyOfRate[r] = c = currencyId(s, m.currency(r));
      counts[c]++;
    }
  s.extraCurrency = input.extras.map((x) => (s.admitted[x.owner] === 1 ? currencyId(s, x.entry.currency) : -1));
  for (const c of s.extraCurrency) if (c >= 0) counts[c]++;
  return s;
}


/** The pickup country's currency when some serving vehicle uses it, else the most used (ties: alphabetical). */
function chooseCurrency(s: Ranking): string | undefined {
  const { counts, currencyNames } = s;
  let chosen = -1;
  const local = s.input.pickupCurrency !== undefined ? s.currencyIds.get(s.input.pickupCurrency) : undefined;
  if (local !== undefined && counts[local] > 0) chosen = local;
  else
    for (let c = 0; c < counts.length; c++)
      if (counts[c] > 0 && (chosen < 0 || counts[c] > counts[chosen] || (counts[c] === counts[chosen] && currencyNames[c] < currencyNames[chosen]))) chosen = c;
  s.chosen = chosen;
  return chosen < 0 ? undefined : currencyNames[chosen];
}

/** The serving vehicles in currencies the quote does not price, and those currencies (alphabetical). */
function leftOutOf(s: Ranking): { leftOut: number; others: string[] } {
  let leftOut = 0;
  const others: string[] = [];
  for (let c = 0; c < s.counts.length; c++)
    if (!priced(s, c) && s.counts[c] > 0) {
      leftOut += s.counts[c];
      others.push(s.currencyNames[c]);
    }
  others.sort(compareStrings);
  return { leftOut, others };
}


/** Price: each distinct rate once, in its currency's minor unit; then the candidates' rows. */
function priceCandidates(s: Ranking, currency: string): void {
  const { input, m, n, rate, currencyOfRate, distanceKm, owner } = s;
  const { extras, quarterHours } = input;
  const digitsOf = (s.digitsOf = s.currencyNames.map((code) => minorUnitOf(input.currencies, code)));
  const ownOfRate = (s.ownOfRate = new Float64Array(m.rates).fill(-1));
  const unitsOfRate = (s.unitsOfRate = new Float64Array(m.rates).fill(-1));
  for (let r = 0; r < m.rates; r++)
    if (priced(s, currencyOfRate[r])) {
      const c = currencyOfRate[r];
      ownOfRate[r] = vehicleFeeMinorUnits({ minimumRate: m.minimumRate(r), hourlyRate: m.hourlyRate(r) }, quarterHours, digitsOf[c]);
      unitsOfRate[r] = rankUnits(s, ownOfRate[r], c);
    }
  const total = (s.total = n + extras.length);
  const units = (s.units = new Float64Array(total));
  const own = (s.own = new Float64Array(total));
  const currencyOf = (s.currencyOf = new Int32Array(total));
  const dist = (s.dist = new Float64Array(total));
  const ownerOf = (s.ownerOf = new Uint32Array(total));
  // Providers with a rate card price each vehicle by it (per type); the fast path's groups by rate then do not hold.
  // Across currencies (fx), a card prices the vehicles in its own currency; else those in the quote's.
  s.cards = input.cards ? cardPricing(input.cards, input.fx ? undefined : currency, input.extrasAsked === true) : undefined;
  for (let i = 0; i < n; i++) {
    units[i] = unitsOfRate[rate[i]];
    own[i] = ownOfRate[rate[i]];
    currencyOf[i] = currencyOfRate[rate[i]];
    dist[i] = distanceKm[i];
    ownerOf[i] = owner[i];
  }
  for (let j = 0; j < extras.length; j++) {
    const x = extras[j];
    const c = s.extraCurrency[j];
    own[n + j] = priced(s, c) ? vehicleFeeMinorUnits(x.entry, quarterHours, digitsOf[c]) : -1;
    units[n + j] = rankUnits(s, own[n + j], c);
    currencyOf[n + j] = c;
    dist[n + j] = x.distanceKm;
    ownerOf[n + j] = x.owner;
  }
  s.anyPreferred = input.terms.preferredType.some((t) => t !== undefined);
  s.kept = new Int32Array(s.admitted.length * MAX_OPTIONS_PER_PROVIDER);
  s.keptCount = new Uint8Array(s.admitted.length);
}

/** Bound, without rate cards: each provider's best 5 kept as the candidates stream by, then merged into the 50. */
function boundByRate(s: Ranking): void {
  const { n, own, extraCurrency } = s;
  const extras = s.input.extras.length;
  // A fee of 0 is never offered (docs/rates.md#never-absurd-the-longest-trip-a-provider-quotes): counted, left out.
  let unpriced = 0;
  for (let i = 0; i < n; i++) if (own[i] === 0 && serves(s, i)) unpriced++;
  for (let j = 0; j < extras; j++) if (priced(s, extraCurrency[j]) && own[n + j] === 0) unpriced++;
  s.unpriced = unpriced;
  if (s.anyPreferred) {
    for (let i = 0; i < n; i++) if (own[i] > 0 && serves(s, i)) offer(s, i);
    for (let j = 0; j < extras; j++) if (priced(s, extraCurrency[j]) && own[n + j] > 0) offer(s, n + j);
  } else offerCheapestFirst(s);
  for (const o of s.present) mergeKept(s, o);
}

/**
 * Without a preferred type a provider's order is the quote's order, so the candidates can be offered by price,
 * cheapest first (grouped by rate, each group all at once): once 50 are kept, a dearer candidate could only
 * follow its provider's kept ones and the 50 kept before it, so the groups left need not be looked at.
 */
function offerCheapestFirst(s: Ranking): void {
  const { m, n, rate, own, units, unitsOfRate, extraCurrency } = s;
  const perRate = new Int32Array(m.rates + 1);
  for (let i = 0; i < n; i++) if (own[i] > 0 && serves(s, i)) perRate[rate[i]]++;
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
  for (let i = 0; i < n; i++) if (own[i] > 0 && serves(s, i)) order[fill[rate[i]]++] = i;
  // Groups: each rate's candidates, and each extra on its own, by units.
  const groups: Array<{ units: number; rate: number; extra: number }> = rates.map((r) => ({ units: unitsOfRate[r], rate: r, extra: -1 }));
  for (let j = 0; j < s.input.extras.length; j++)
    if (priced(s, extraCurrency[j]) && own[n + j] > 0) groups.push({ units: units[n + j], rate: -1, extra: n + j });
  groups.sort((a, b) => a.units - b.units);
  for (let g = 0; g < groups.length; g++) {
    const group = groups[g];
    if (group.rate < 0) offer(s, group.extra);
    else for (let k = start[group.rate], end = k + perRate[group.rate]; k < end; k++) offer(s, order[k]);
    if (s.keptTotal >= MAX_NETWORK_OPTIONS && (g + 1 === groups.length || groups[g + 1].units > group.units)) return;
  }
}

/**
 * With rate cards (docs/performance.md#rate-cards-issue-35) a vehicle's fee is its provider's card's, so candidates cannot be grouped by rate.
 * Providers are taken by a lower bound of their fees instead (the cheapest their card can give, CardQuote.floor; the
 * exact fees of their vehicles without a card), nearest first among equal bounds: each one's vehicles priced and
 * offered, its best added to the 50. Once 50 are kept, a provider whose bound and nearest vehicle rank after the 50th
 * could add none, nor could any after it: their cards are never prepared. Their fees are at least that bound, above
 * 0, so none of them is an unpriced vehicle either.
 */
function boundByProvider(s: Ranking): void {
  const { n, total, own, units, dist, ownerOf, currencyOf, currencyNames, best } = s;
  const cards = s.cards!, touched = cards.touched;
  const owners = s.admitted.length;
  const bound = new Float64Array(owners).fill(Infinity);
  const ownFloor = new Float64Array(owners).fill(Infinity);
  const cardCurrency = new Int32Array(owners).fill(-1);
  const nearest = new Float64Array(owners).fill(Infinity);
  const count = new Int32Array(owners);
  // Per vehicle: 1 priced by its card, 0 by its own rates, -1 not a candidate.
  const mode = new Int8Array(total).fill(-1);
  for (let i = 0; i < total; i++) {
    if (own[i] < 0 || (i < n && !serves(s, i))) continue;
    const o = ownerOf[i];
    const how = touched[o] === 1 ? cards.kind(o, currencyNames[currencyOf[i]]) : 0;
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
    if (cardCurrency[o] >= 0) bound[o] = Math.min(bound[o], rankUnits(s, cards.floor(o, ownFloor[o]), cardCurrency[o]));
    order.push(o);
  }
  order.sort((a, b) => bound[a] - bound[b] || nearest[a] - nearest[b]);
  // Each provider's candidates, by counting sort over owner numbers.
  const start = new Int32Array(owners + 1);
  for (let o = 0; o < owners; o++) start[o + 1] = start[o] + count[o];
  const fill = start.slice(0, owners);
  const byOwner = new Int32Array(start[owners]);
  for (let i = 0; i < total; i++) if (mode[i] >= 0) byOwner[fill[ownerOf[i]]++] = i;
  let unpriced = 0;
  for (const o of order) {
    if (best.length === MAX_NETWORK_OPTIONS) {
      const last = best[MAX_NETWORK_OPTIONS - 1];
      if (bound[o] > units[last] || (bound[o] === units[last] && nearest[o] > dist[last])) break;
    }
    for (let k = start[o]; k < start[o + 1]; k++) {
      const i = byOwner[k];
      if (mode[i] === 1) {
        own[i] = cards.units(o, typeOf(s, i), own[i], currencyNames[currencyOf[i]]);
        units[i] = rankUnits(s, own[i], currencyOf[i]);
      }
      if (own[i] === 0) unpriced++;
      else if (own[i] > 0) offer(s, i);
    }
    mergeKept(s, o);
  }
  s.unpriced = unpriced;
}

/** Offers i to its provider's best 5 (its mapped type first, then cheapest, nearest, by code): most are turned away by one comparison with its fifth. */
function offer(s: Ranking, i: number): void {
  const { kept, keptCount } = s;
  const o = s.ownerOf[i];
  const base = o * MAX_OPTIONS_PER_PROVIDER;
  let k = keptCount[o];
  if (k === 0) s.present.push(o);
  if (k === MAX_OPTIONS_PER_PROVIDER) {
    if (withinProvider(s, i, kept[base + k - 1]) >= 0) return;
    k--;
  } else {
    keptCount[o] = k + 1;
    s.keptTotal++;
  }
  while (k > 0 && withinProvider(s, i, kept[base + k - 1]) < 0) {
    kept[base + k] = kept[base + k - 1];
    k--;
  }
  kept[base + k] = i;
}
function withinProvider(s: Ranking, a: number, b: number): number {
  const { units, dist } = s;
  const first = s.anyPreferred ? Number(preferred(s, b)) - Number(preferred(s, a)) : 0;
  return first || units[a] - units[b] || dist[a] - dist[b] || compareStrings(slugOf(s, a), slugOf(s, b));
}

/** Merge: provider o's kept ones into the best 50 (cheapest, nearest, by provider and code). */
function mergeKept(s: Ranking, o: number): void {
  const best = s.best;
  for (let k = 0; k < s.keptCount[o]; k++) {
    const i = s.kept[o * MAX_OPTIONS_PER_PROVIDER + k];
    if (best.length === MAX_NETWORK_OPTIONS && across(s, i, best[MAX_NETWORK_OPTIONS - 1]) >= 0) continue;
    let at = best.length;
    while (at > 0 && across(s, i, best[at - 1]) < 0) at--;
    best.splice(at, 0, i);
    if (best.length > MAX_NETWORK_OPTIONS) best.pop();
  }
}
function across(s: Ranking, a: number, b: number): number {
  const { input, units, dist, ownerOf } = s;
  const byFee = units[a] - units[b] || dist[a] - dist[b];
  return byFee || compareStrings(input.netidOf(ownerOf[a]), input.netidOf(ownerOf[b])) || compareStrings(slugOf(s, a), slugOf(s, b));
}


/** Merge, last: only the chosen candidates materialised, each with its breakdown. */
function materialise(s: Ranking): PricedVehicle[] {
  const { n, m, own, rate, ownOfRate, currencyOf, currencyNames, digitsOf, ownerOf, dist, cards } = s;
  const { extras, quarterHours } = s.input;
  return s.best.map((i): PricedVehicle => {
    const u = own[i];
    const entry = i < n ? m.entry(i) : extras[i - n].entry;
    const code = currencyNames[currencyOf[i]];
    const digits = digitsOf[currencyOf[i]];
    // Its breakdown: the card's lines (its own formula as the base when no card rate applies), else one line.
    const base = i < n ? ownOfRate[rate[i]] : vehicleFeeMinorUnits(entry, quarterHours, digits);
    const breakdown = cards && cards.touched[ownerOf[i]] === 1 ? cards.lines(ownerOf[i], entry.type, base, u, digits, code) : vehicleRateBreakdown(u, digits);
    return { entry, minorUnits: u, fee: formatMinorUnits(u, digits), distanceKm: dist[i], preferred: preferred(s, i), breakdown };
  });
}
