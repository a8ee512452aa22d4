import type { AirportDirectory } from "../airports";
import type { CurrencyDirectory } from "../currency";
import type { Integration } from "../delivery/integration";
import type { CircleMatches } from "../fleet/ports";
import type { RateCardRepository } from "./ports";
import { missingExtras } from "./card-pricing";
import { compiledCard, pricedTrip, type CardTripFacts } from "./priced-quote";
import type { QuoteBuildRequest } from "./quote";
import { roadKmOf, tooLong } from "../trips/trip-length";
import { providerCard, type ProviderCard } from "./network-cards";
import { noCardShortfalls, shortfallCause, type ExtraShortfall } from "./trip-extras";
import type { ProviderTerms } from "./network-rank";

/**
 * Serving vehicles left out of a network quote by their provider's trip length or rate card
 * (docs/rates.md#how-a-vehicle-is-priced, docs/rates.md#never-absurd-the-longest-trip-a-provider-quotes).
 */
export interface LeftOutByCard {
  /** TRIP_TOO_LONG: vehicles whose provider's maxTripKm is shorter than the trip's road distance (`roadKm`). */
  tooLong: number;
  /** The providers so left out (a provider whose vehicles only list the airport has none the circle counts). */
  tooLongProviders: number;
  roadKm?: number;
  /** EXTRA_NOT_OFFERED: vehicles whose provider cannot supply an asked extra, and why (each cause once). */
  extraNotOffered: number;
  missingExtras: ExtraShortfall[];
}

/** What the circle around the pickup met, as leaving providers out reads it. */
export interface MetProviders {
  owners: readonly number[];
  netids: readonly string[];
  integrations: ReadonlyMap<string, Integration>;
  matches: CircleMatches;
  facts: CardTripFacts;
}

/**
 * Over the admitted providers: one whose `maxTripKm` the trip's road distance exceeds is no longer admitted; then
 * each remaining one's rate card is prepared for the trip (once per quote), and one that cannot supply an asked
 * extra (no card: any extra the trip lists; a card: one it lacks or offers fewer of) is no longer admitted. The
 * serving vehicles each leaves out are counted (those the circle met within its radius, not held).
 */
export async function leaveOutByCard(
  deps: { rateCards?: Pick<RateCardRepository, "getMany">; currencies: CurrencyDirectory; airports: AirportDirectory },
  met: MetProviders,
  terms: ProviderTerms,
  request: Pick<QuoteBuildRequest, "pickup" | "dropOff" | "stops" | "tripMinutes" | "now">,
): Promise<{ cards: Array<ProviderCard | undefined>; leftOut: LeftOutByCard }> {
  const { owners, netids, integrations, facts } = met;
  const cards = new Array<ProviderCard | undefined>(terms.admitted.length);
  const leftOut: LeftOutByCard = { tooLong: 0, tooLongProviders: 0, extraNotOffered: 0, missingExtras: [] };
  const roadKm = request.pickup ? roadKmOf(request.pickup, request.dropOff, request.stops) : undefined;
  if (roadKm !== undefined) leftOut.roadKm = roadKm;
  const tooLongOwners: number[] = [];
  owners.forEach((o, k) => {
    if (terms.admitted[o] === 1 && tooLong(roadKm, integrations.get(netids[k])?.maxTripKm)) {
      terms.admitted[o] = 0;
      tooLongOwners.push(o);
    }
  });

  const admittedNetids: string[] = [];
  owners.forEach((o, k) => terms.admitted[o] === 1 && admittedNetids.push(netids[k]));
  const stored = deps.rateCards && admittedNetids.length > 0 ? await deps.rateCards.getMany(admittedNetids) : new Map();
  const listed = noCardShortfalls(facts.extras.filter((x) => !x.implied));
  const missing = new Map<string, ExtraShortfall>();
  const noExtraOwners: number[] = [];
  const trip = { passengerCount: 0, luggageCount: undefined, ...request };
  // The trip as every card prices it; a card that prices stops (EXTRA_STOP) gets its own, with the stops asked.
  const common = pricedTrip(trip, facts, undefined);
  owners.forEach((o, k) => {
    if (terms.admitted[o] !== 1) return;
    const card = stored.get(netids[k]);
    let lacking = listed;
    if (card) {
      const compiled = compiledCard(card, deps.currencies, deps.airports);
      const priced = facts.stops > 0 && compiled.extras.has("EXTRA_STOP") ? pricedTrip(trip, facts, compiled) : common;
      if (priced) {
        lacking = priced.extras.length > 0 ? missingExtras(compiled, priced) : [];
        if (lacking.length === 0) cards[o] = providerCard(compiled, priced);
      }
    }
    if (lacking.length > 0) {
      terms.admitted[o] = 0;
      noExtraOwners.push(o);
      for (const shortfall of lacking) missing.set(shortfallCause(shortfall), shortfall);
    }
  });
  leftOut.missingExtras = [...missing.values()];
  leftOut.tooLongProviders = tooLongOwners.length;
  if (tooLongOwners.length > 0 || noExtraOwners.length > 0) {
    const counts = servingCounts(met.matches, terms);
    for (const o of tooLongOwners) leftOut.tooLong += counts[o] ?? 0;
    for (const o of noExtraOwners) leftOut.extraNotOffered += counts[o] ?? 0;
  }
  return { cards, leftOut };
}

/** Per owner, the vehicles the circle met within its radius and not held (whether admitted or not). */
function servingCounts(m: CircleMatches, terms: ProviderTerms): Uint32Array {
  const counts = new Uint32Array(terms.admitted.length);
  for (let i = 0; i < m.count; i++) {
    const o = m.owner[i];
    if (m.distanceKm[i] > terms.radiusKm[o]) continue;
    if (terms.busy?.[o]?.has(m.slug(i))) continue;
    counts[o]++;
  }
  return counts;
}
