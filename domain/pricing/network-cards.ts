import {
  cardFloor,
  cardQuote,
  cardRoadKm,
  vehicleRateBreakdown,
  type CardQuote,
  type CompiledCard,
  type PricedTrip,
} from "./card-pricing";
import type { BreakdownLine } from "../trips/breakdown-line";

/**
 * A provider's rate card for one network quote's trip (docs/rates.md#how-a-vehicle-is-priced): its currency, the card and the trip as it
 * prices it, and its pricer, prepared when first asked (a quote ranks providers by cardFloor first).
 */
export interface ProviderCard {
  currency: string;
  card: CompiledCard;
  trip: PricedTrip;
  readonly quote: CardQuote;
}

/** The provider card of `card` for `trip`; its pricer made on first use. */
export function providerCard(card: CompiledCard, trip: PricedTrip): ProviderCard {
  let quote: CardQuote | undefined;
  return {
    currency: card.currency,
    card,
    trip,
    get quote() {
      return (quote ??= cardQuote(card, trip));
    },
  };
}

/**
 * The rate cards of a network quote's providers in its currency, by owner number: `touched[o]` is 1 for a provider
 * whose card decides its prices (priced by the card; or, asked extras and a card in another currency, left out);
 * others are priced by their vehicles' own rates.
 */
export interface CardPricing {
  touched: Uint8Array;
  /** The fee (minor units) of a vehicle of owner `o`, `type` and `currency` whose own formula gives `own`; -1: left out. */
  units(o: number, type: string, own: number, currency: string): number;
  /** How a vehicle of owner `o` in `currency` is priced: 1 by its card, 0 by its own rates, -1 left out. */
  kind(o: number, currency: string): 1 | 0 | -1;
  /** A lower bound of `units` for the vehicles of owner `o` its card prices, whose own formulas give at least `ownFloor`. */
  floor(o: number, ownFloor: number): number;
  /** The breakdown of a vehicle priced at `units` (its own formula `own`), summing to it. */
  lines(o: number, type: string, own: number, units: number, digits: number, currency: string): BreakdownLine[];
}

/**
 * The cards usable in the quote's `currency` — or, across currencies (`currency` undefined: the network quote with
 * its FX table, docs/fx.md#what-a-network-quote-shows), in each vehicle's own. A card in another currency than the vehicle is priced in
 * prices nothing: the vehicle uses its own rates, or is left out when the trip asks extras, which only a card prices.
 * Undefined when no provider has a card. Each type's card rate is priced once per provider.
 */
export function cardPricing(cards: ReadonlyArray<ProviderCard | undefined>, currency: string | undefined, extrasAsked: boolean): CardPricing | undefined {
  if (!cards.some((c) => c !== undefined)) return undefined;
  const touched = new Uint8Array(cards.length);
  cards.forEach((c, o) => {
    if (c !== undefined && (currency === undefined || c.currency === currency || extrasAsked)) touched[o] = 1;
  });
  // Per vehicle type, per owner: the units when one of its card's rates prices the type (NaN: not yet asked;
  // -Infinity: none does, so the vehicle's own fee is the base, priced by the card's surcharges and minimum).
  const fixedByType = new Map<string, Float64Array>();
  const kind = (o: number, vehicleCurrency: string): 1 | 0 | -1 => {
    const card = cards[o];
    if (card === undefined) return 0;
    if (card.currency !== (currency ?? vehicleCurrency)) return extrasAsked ? -1 : 0;
    return 1;
  };
  return {
    touched,
    kind,
    floor(o, ownFloor) {
      const { card, trip } = cards[o]!;
      return cardFloor(card, trip, trip.dropOff ? (trip.roadKm ?? cardRoadKm(trip.pickup, trip.dropOff, trip.stops)) : undefined, ownFloor);
    },
    units(o, type, own, vehicleCurrency) {
      const how = kind(o, vehicleCurrency);
      if (how !== 1) return how === 0 ? own : -1;
      const card = cards[o]!;
      let fixed = fixedByType.get(type);
      if (!fixed) fixedByType.set(type, (fixed = new Float64Array(cards.length).fill(NaN)));
      let u = fixed[o];
      if (Number.isNaN(u)) fixed[o] = u = card.quote.cardUnits(type) ?? -Infinity;
      return u === -Infinity ? card.quote.units(type, own) : u;
    },
    lines(o, type, own, units, digits, vehicleCurrency) {
      return kind(o, vehicleCurrency) === 1 ? cards[o]!.quote.price(type, own).lines : vehicleRateBreakdown(units, digits);
    },
  };
}
