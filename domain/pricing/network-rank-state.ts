import type { CurrencyDirectory } from "../currency";
import type { CircleMatches } from "../fleet/ports";
import type { cardPricing, ProviderCard } from "./network-cards";
import type { OptionEntry, PricedVehicle } from "./network-quote";

// The network quote's ranking state, handed from phase to phase (domain/pricing/network-rank.ts runs the phases),
// and the small questions every phase asks of it: which currency a code is, whether a match serves the pickup,
// whether a currency is priced, what ranks a fee, a candidate's slug and type.

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
export const NO_RATE_RANK = 2 ** 50;

export const compareStrings = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** The ranking's state, handed from phase to phase (one object per quote, none per vehicle): candidates are the matches (i < n), then the extras (n + j). */
export type Ranking = ReturnType<typeof newRanking>;

export function newRanking(input: RankInput) {
  const { matches: m, terms } = input;
  const none = new Float64Array(0);
  return {
    input, m, n: m.count, owner: m.owner, rate: m.rate, distanceKm: m.distanceKm, admitted: terms.admitted, radiusKm: terms.radiusKm, held: terms.busy,
    // Admit: currencies interned per rate; serving vehicles counted per currency; the quote's currency (-1: none).
    currencyOfRate: new Int32Array(m.rates).fill(-1), currencyIds: new Map<string, number>(), currencyNames: [] as string[], counts: [] as number[],
    extraCurrency: [] as number[], chosen: -1,
    // Price: per rate, then per candidate, `own` (the fee in its currency's minor units) and `units` (what ranks: with fx, converted).
    digitsOf: [] as number[], ownOfRate: none, unitsOfRate: none, cards: undefined as ReturnType<typeof cardPricing>, anyPreferred: false,
    total: 0, units: none, own: none, currencyOf: new Int32Array(0), dist: none, ownerOf: new Uint32Array(0),
    // Bound: each provider's best 5 in a flat table (`present`: the providers with any); merge: the best 50.
    kept: new Int32Array(0), keptCount: new Uint8Array(0), present: [] as number[], keptTotal: 0, best: [] as number[], unpriced: 0,
  };
}
/** A currency's number, interned on first sight. */
export function currencyId(s: Ranking, code: string): number {
  let id = s.currencyIds.get(code);
  if (id === undefined) {
    s.currencyIds.set(code, (id = s.currencyNames.length));
    s.currencyNames.push(code);
    s.counts.push(0);
  }
  return id;
}
/** Match i serves the pickup: its provider admitted, within its radius, and the vehicle not held over the trip. */
export function serves(s: Ranking, i: number): boolean {
  const o = s.owner[i];
  const held = s.held;
  return s.admitted[o] === 1 && s.distanceKm[i] <= s.radiusKm[o] && !(held !== undefined && held[o] !== undefined && held[o]!.has(s.m.slug(i)));
}
/** Vehicles in currency `c` are priced: the quote's currency, or any with fx. */
export function priced(s: Ranking, c: number): boolean {
  return c === s.chosen || (s.input.fx !== undefined && c >= 0);
}
/** What ranks a fee `own` in currency `c`: itself, or with fx converted (after every converted one without a rate). */
export function rankUnits(s: Ranking, own: number, c: number): number {
  const fx = s.input.fx;
  if (!fx || own < 0) return own;
  const converted = fx.units(own, s.currencyNames[c]);
  return converted === undefined ? NO_RATE_RANK + own : converted;
}
export const slugOf = (s: Ranking, i: number): string => (i < s.n ? s.m.slug(i) : s.input.extras[i - s.n].entry.slug);
export const typeOf = (s: Ranking, i: number): string => (i < s.n ? s.m.type(i) : s.input.extras[i - s.n].entry.type);
export function preferred(s: Ranking, i: number): boolean {
  if (!s.anyPreferred) return false;
  const wanted = s.input.terms.preferredType[s.ownerOf[i]];
  return wanted !== undefined && typeOf(s, i) === wanted;
}
