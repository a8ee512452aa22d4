import type { FleetEntry } from "../fleet/entry";
import type { ConvertedFee } from "../fx/convert";
import type { Fee, Terms } from "../trips/booking";
import type { BreakdownLine } from "../trips/breakdown-line";
import type { ProviderRecord } from "../partners/provider-record";
import { luggageCountField } from "../trips/luggage";
import type { TripWarning } from "../trips/warnings";
import { vehicleRateLine as vehicleRateBreakdownOf } from "./card-pricing";

/** How long a network quote and its prices hold. */
export const NETWORK_QUOTE_VALIDITY_SECONDS = 24 * 3600;
/** Options one provider contributes at most, and a network quote holds at most. */
export const MAX_OPTIONS_PER_PROVIDER = 5;
export const MAX_NETWORK_OPTIONS = 50;
/** At most this many providers may be named in `providers`. */
export const MAX_NAMED_PROVIDERS = 100;

/** One priced vehicle of one provider, as the network quote offers it. */
export interface NetworkQuoteOption {
  /** `<provider netid>:<code>`: unique in the quote, what POST /api/quotes/{quoteId}/book names. */
  quoteOptionId: string;
  provider: { netid: string; name: string; record?: ProviderRecord };
  /** The provider's fleet entry (its slug): what a sendTrip with `quoteId` names in `fees[0].code`. */
  code: string;
  name: string;
  description: string;
  vehType: string;
  passengerCount: string;
  luggageCount?: string;
  /** In the quote's currency, with its minor unit's digits. */
  fee: string;
  currency: string;
  /** Great-circle distance from the vehicle to the pickup, km with 1 decimal (0 for a vehicle placed only by the airport it lists). */
  nearestKm: number;
  images: string[];
  /** The fee converted into the quote's display currency (docs/fx.md#what-a-network-quote-shows), when one was asked and the FX table has the rate. */
  converted?: ConvertedFee;
  /** The provider's terms for the trip (docs/terms.md#policies). */
  terms?: Terms;
  /** How the fee is made up (docs/rates.md#how-a-vehicle-is-priced): lines summing exactly to `fee`. */
  breakdown: BreakdownLine[];
}

/** A non-fatal note of a network quote (the warnings a QUOTE answers: NO_VEHICLE_NEAR_PICKUP, OTHER_CURRENCIES_LEFT_OUT). */
export type NetworkQuoteWarning = TripWarning;

/** A stored network quote: the trip asked about, as sent, and the options priced for it. */
export interface NetworkQuote {
  quoteId: string;
  makerNetid: string;
  makerUid: string;
  /** Unix seconds. */
  createdAt: number;
  validUntil: number;
  /** The one currency of every option; null when there is no option. */
  currency: string | null;
  /** The trip fields as sent (sendTrip shape, no affiliateReservation): what a booking of an option starts from. */
  trip: Record<string, unknown>;
  /** Canonical JSON of the priced fields (locations, counts, duration): a booking of the quote must ask for the same trip. */
  pricedTrip: string;
  options: NetworkQuoteOption[];
  warnings: NetworkQuoteWarning[];
  /** The quote asked partners only: the cascade moves a booking of it only to a provider still partnered then. */
  partnersOnly?: boolean;
}

/** What an option shows of its vehicle's fleet entry (a stored entry, or one read from the geo index). */
export type OptionEntry = Pick<
  FleetEntry,
  "slug" | "netid" | "type" | "name" | "description" | "imageUrl" | "maxPassengers" | "maxLuggage" | "minimumRate" | "hourlyRate" | "currency"
>;

/** A serving vehicle priced for the trip, before the quote picks its currency and ranks. */
export interface PricedVehicle {
  entry: OptionEntry;
  /** The fee in the vehicle's currency's minor units, and as the decimal string shown. */
  minorUnits: number;
  fee: string;
  distanceKm: number;
  /** Of the type the provider mapped the requester's preferred type to (its options come first within the provider). */
  preferred: boolean;
  /** The lines of its fee (the card's, or its own rates as one line). */
  breakdown?: BreakdownLine[];
}

/**
 * The quote's one currency: the pickup country's when some vehicle is priced in it, else the one most vehicles
 * use (ties: alphabetical). Undefined when there is no vehicle.
 */
export function chooseNetworkCurrency(vehicles: readonly PricedVehicle[], pickupCurrency: string | undefined): string | undefined {
  const counts = new Map<string, number>();
  for (const v of vehicles) counts.set(v.entry.currency, (counts.get(v.entry.currency) ?? 0) + 1);
  if (pickupCurrency !== undefined && counts.has(pickupCurrency)) return pickupCurrency;
  let best: string | undefined;
  for (const [currency, n] of counts) if (best === undefined || n > counts.get(best)! || (n === counts.get(best)! && currency < best)) best = currency;
  return best;
}

const bySlug = (a: PricedVehicle, b: PricedVehicle) => (a.entry.slug < b.entry.slug ? -1 : a.entry.slug > b.entry.slug ? 1 : 0);

/**
 * The options of a network quote from every admitted provider's priced vehicles (all in one currency): each
 * provider's best 5 — its mapped preferred type first, then cheapest, nearest — then all of them cheapest first,
 * then nearest (then provider and code, so equal prices rank the same way every time), at most 50. The plain
 * reference: quotes rank through rankCircle (network-rank.ts), which a property test holds to this and
 * chooseNetworkCurrency.
 */
export function rankNetworkOptions(vehicles: readonly PricedVehicle[], names: ReadonlyMap<string, string>): NetworkQuoteOption[] {
  const byProvider = new Map<string, PricedVehicle[]>();
  for (const v of vehicles) {
    const list = byProvider.get(v.entry.netid);
    if (list) list.push(v);
    else byProvider.set(v.entry.netid, [v]);
  }
  const kept: PricedVehicle[] = [];
  for (const list of byProvider.values()) {
    list.sort((a, b) => Number(b.preferred) - Number(a.preferred) || a.minorUnits - b.minorUnits || a.distanceKm - b.distanceKm || bySlug(a, b));
    kept.push(...list.slice(0, MAX_OPTIONS_PER_PROVIDER));
  }
  kept.sort(
    (a, b) =>
      a.minorUnits - b.minorUnits ||
      a.distanceKm - b.distanceKm ||
      (a.entry.netid < b.entry.netid ? -1 : a.entry.netid > b.entry.netid ? 1 : 0) ||
      bySlug(a, b),
  );
  return networkOptionsOf(kept.slice(0, MAX_NETWORK_OPTIONS), names);
}

/** The options shown for ranked vehicles, each with its provider's name (its netid when unknown). */
export function networkOptionsOf(ranked: readonly PricedVehicle[], names: ReadonlyMap<string, string>): NetworkQuoteOption[] {
  return ranked.map((v) => networkOption(v, names.get(v.entry.netid) ?? v.entry.netid));
}

function networkOption(v: PricedVehicle, providerName: string): NetworkQuoteOption {
  const { entry } = v;
  return {
    quoteOptionId: `${entry.netid}:${entry.slug}`,
    provider: { netid: entry.netid, name: providerName },
    code: entry.slug,
    name: entry.name,
    description: entry.description,
    vehType: entry.type,
    passengerCount: String(entry.maxPassengers),
    ...luggageCountField(entry.maxLuggage ?? undefined),
    fee: v.fee,
    currency: entry.currency,
    nearestKm: Math.round(v.distanceKm * 10) / 10,
    images: entry.imageUrl ? [entry.imageUrl] : [],
    breakdown: v.breakdown ?? vehicleRateBreakdownOf(v.fee),
  };
}

/** The fee line a booked option becomes (the shape of a quote's vehicle option), valid as long as the quote. */
export function optionFeeLine(option: NetworkQuoteOption, validUntilIso: string): Fee {
  return {
    type: "OTHER",
    code: option.code,
    name: option.name,
    description: option.description,
    fee: option.fee,
    currency: option.currency,
    vehType: option.vehType,
    passengerCount: option.passengerCount,
    ...(option.luggageCount !== undefined ? { luggageCount: option.luggageCount } : {}),
    images: option.images,
    validUntil: validUntilIso,
    // A booked option keeps how its fee is made up (docs/rates.md#how-a-vehicle-is-priced); a quote stored before breakdowns: one line.
    breakdown: option.breakdown ?? vehicleRateBreakdownOf(option.fee),
  };
}
