import type { FleetEntry, QuotableVehicle } from "../fleet/entry";
import { formatMinorUnits, minorUnitOf, toTenThousandths, type CurrencyDirectory } from "../currency";
import { toCents } from "../money";
import { isoAt, type QuoteOption } from "../trips/booking";
import { holdsLuggage, luggageCountField } from "../trips/luggage";
import type { Position } from "../trips/places";
import { roadKmOf } from "../trips/trip-length";
import type { TripWarning } from "../trips/warnings";

export const AVERAGE_SPEED_KMH = 50;
export const MAX_QUOTE_OPTIONS = 20;
export const QUOTE_VALIDITY_SECONDS = 24 * 3600;

export interface QuoteRequest {
  passengerCount: number;
  /** undefined when the requester did not specify luggage (then luggage does not filter). */
  luggageCount: number | undefined;
  pickup: Position | undefined;
  dropOff: Position | undefined;
  /**
   * The stops in order, where placed (undefined: one nothing places): the road distance runs through them, and a route
   * must hold them (docs/rates.md#stops-the-road-runs-through-them).
   */
  stops?: ReadonlyArray<Position | undefined>;
  /** The trip's booked duration (GNet's totalTripDuration), when given: the quote is priced on it, not the distance. */
  tripMinutes?: number;
  /** Unix seconds; options are valid for 24 h from now. */
  now: number;
  /** The provider's own type for the requester's preferred vehicle (from the partnership's map): its options come first. */
  preferredVehType?: string;
}

/**
 * Estimated trip duration in quarter hours: the road distance through the placed stops (roadKmOf: each leg great
 * circle × road factor, docs/rates.md#stops-the-road-runs-through-them) at the average speed, at least 1 h, rounded
 * up to ¼ h; 1 h when either end's position is unknown.
 */
export function estimatedQuarterHours(
  pickup: Position | undefined,
  dropOff: Position | undefined,
  stops?: ReadonlyArray<Position | undefined>,
): number {
  if (!pickup || !dropOff) return 4;
  const hours = roadKmOf(pickup, dropOff, stops)! / AVERAGE_SPEED_KMH;
  // The epsilon keeps an exact quarter (e.g. 2.0000000001 from float noise) from rounding up a further ¼ h.
  return Math.max(4, Math.ceil(hours * 4 - 1e-9));
}

/** A booked duration in quarter hours: at least 1 h, rounded up to ¼ h (as the distance estimate is). */
export function bookedQuarterHours(minutes: number): number {
  return Math.max(4, Math.ceil(minutes / 15 - 1e-9));
}

/**
 * The fee of one vehicle in cents: max(minimum rate, hourly rate × hours). The hourly part is rounded
 * half up to the cent; all arithmetic is on integer cents.
 */
export function vehicleFeeCents(entry: Pick<FleetEntry, "minimumRate" | "hourlyRate">, quarterHours: number): number {
  const minimum = toCents(entry.minimumRate) ?? 0;
  const hourly = toCents(entry.hourlyRate) ?? 0;
  const timed = Math.floor((hourly * quarterHours + 2) / 4);
  return Math.max(minimum, timed);
}

/** A priced quote: its options (one currency), that currency (null without options) and its warnings. */
export interface PricedQuote {
  options: QuoteOption[];
  currency: string | null;
  warnings: TripWarning[];
}

/** What a quote is priced for: the trip, and the pickup's country (ISO alpha-2) when known. */
export interface QuoteBuildRequest extends QuoteRequest {
  country?: string;
}

/**
 * The fee of one vehicle in the currency's minor units: max(minimum rate, hourly rate × hours), each rounded
 * half up to the minor unit (JPY whole yen, BHD fils). Integer arithmetic on 1/40,000 units, no floats.
 */
export function vehicleFeeMinorUnits(entry: Pick<FleetEntry, "minimumRate" | "hourlyRate">, quarterHours: number, digits: number): number {
  return feeOfTenThousandths(toTenThousandths(entry.minimumRate) ?? 0, toTenThousandths(entry.hourlyRate) ?? 0, quarterHours, digits);
}

/** vehicleFeeMinorUnits from the rates already read as ten-thousandths of the currency unit. */
export function feeOfTenThousandths(minimumRate: number, hourlyRate: number, quarterHours: number, digits: number): number {
  const step = 4 * 10 ** (4 - digits);
  const minimum = 4 * minimumRate;
  const timed = hourlyRate * quarterHours;
  return Math.max(Math.floor((minimum + step / 2) / step), Math.floor((timed + step / 2) / step));
}

/** Whether a vehicle can do the trip: active, seats the passengers and, only when luggage is specified, holds it. */
export function fitsTrip(
  entry: Pick<FleetEntry, "active" | "maxPassengers" | "maxLuggage">,
  request: Pick<QuoteRequest, "passengerCount" | "luggageCount">,
): boolean {
  return entry.active && entry.maxPassengers >= request.passengerCount && holdsLuggage(entry.maxLuggage, request.luggageCount);
}

/**
 * The one currency of a quote: the pickup country's when some vehicle prices in it, else the one most of them
 * use (ties: the code first in alphabetical order); null without vehicles.
 */
export function chooseQuoteCurrency(
  entries: ReadonlyArray<Pick<FleetEntry, "currency">>,
  country: string | undefined,
  currencies: CurrencyDirectory,
): string | null {
  const counts = new Map<string, number>();
  for (const e of entries) counts.set(e.currency, (counts.get(e.currency) ?? 0) + 1);
  return currencyOfCounts(counts, country, currencies);
}

/** chooseQuoteCurrency from the number of vehicles pricing in each currency (counts of 0 are not listed). */
export function currencyOfCounts(counts: ReadonlyMap<string, number>, country: string | undefined, currencies: CurrencyDirectory): string | null {
  const local = country ? currencies.ofCountry(country) : undefined;
  if (local !== undefined && counts.has(local)) return local;
  let best: string | null = null;
  for (const [code, n] of counts) if (best === null || n > counts.get(best)! || (n === counts.get(best)! && code < best)) best = code;
  return best;
}

export const NO_VEHICLE_NEAR_PICKUP: TripWarning = {
  code: "NO_VEHICLE_NEAR_PICKUP",
  message: "No vehicle of the provider serves the pickup (none lists its airport or stands within its service radius)",
};
export const NO_VEHICLE_FITS_TRIP: TripWarning = {
  code: "NO_VEHICLE_FITS_TRIP",
  message: "The provider's vehicles serving the pickup do not seat the passengers and luggage",
};

/** The OTHER_CURRENCIES_LEFT_OUT warning: `leftOut` fitting vehicles priced in `others` (sorted) left out of a quote in `currency`. */
export function otherCurrenciesLeftOut(leftOut: number, others: string[], currency: string): TripWarning {
  return {
    code: "OTHER_CURRENCIES_LEFT_OUT",
    message: `${leftOut} vehicle option(s) priced in ${others.join(", ")} left out: this quote is in ${currency}`,
    count: leftOut,
    currencies: others,
  };
}

/**
 * The quarter hours a quote is priced on, and a booked vehicle is held for: the booked duration when the trip gives
 * one, else the estimate along its stops.
 */
export function quoteQuarterHours(request: Pick<QuoteRequest, "tripMinutes" | "pickup" | "dropOff" | "stops">): number {
  return request.tripMinutes ? bookedQuarterHours(request.tripMinutes) : estimatedQuarterHours(request.pickup, request.dropOff, request.stops);
}

/** The quote option of one vehicle at `units` of its currency's minor unit (`digits` decimals). */
export function quoteOptionOf(entry: QuotableVehicle, units: number, digits: number, validUntil: string): QuoteOption {
  return {
    type: "OTHER",
    code: entry.slug,
    name: entry.name,
    description: entry.description,
    fee: formatMinorUnits(units, digits),
    currency: entry.currency,
    vehType: entry.type,
    passengerCount: String(entry.maxPassengers),
    ...luggageCountField(entry.maxLuggage ?? undefined),
    images: entry.imageUrl ? [entry.imageUrl] : [],
    validUntil,
  };
}

/**
 * A quote from the provider's vehicles serving the pickup (see service-area.ts): those that fit the trip, in one
 * currency (chooseQuoteCurrency; the others left out and counted in a warning), one option per vehicle, priced in
 * that currency's minor unit, cheapest first (then by code; a `preferredVehType`'s options before the others), at
 * most 20, each valid for 24 h. Priced on the booked duration when the trip gives one (an hourly trip), else on the
 * pickup → drop-off distance. No serving vehicle: no options and NO_VEHICLE_NEAR_PICKUP.
 */
export function buildQuote(serving: readonly QuotableVehicle[], request: QuoteBuildRequest, currencies: CurrencyDirectory): PricedQuote {
  const chosen = quotableInCurrency(serving, request, currencies);
  if ("options" in chosen) return chosen;
  const { vehicles, currency, warnings } = chosen;
  return { options: rankedOptions(vehicles, request, minorUnitOf(currencies, currency)), currency, warnings };
}

/**
 * The vehicles a quote prices: active, fitting the trip, in the quote's one currency (the others counted in a
 * warning). An empty quote with its warning when none is active or none fits.
 */
export function quotableInCurrency<V extends QuotableVehicle>(
  serving: readonly V[],
  request: QuoteBuildRequest,
  currencies: CurrencyDirectory,
): PricedQuote | { vehicles: V[]; currency: string; warnings: TripWarning[] } {
  const active = serving.filter((e) => e.active);
  if (active.length === 0) return { options: [], currency: null, warnings: [{ ...NO_VEHICLE_NEAR_PICKUP }] };
  const fitting = active.filter((e) => fitsTrip(e, request));
  if (fitting.length === 0) return { options: [], currency: null, warnings: [{ ...NO_VEHICLE_FITS_TRIP }] };
  const currency = chooseQuoteCurrency(fitting, request.country, currencies)!;
  const vehicles = fitting.filter((e) => e.currency === currency);
  const warnings: TripWarning[] = [];
  const leftOut = fitting.length - vehicles.length;
  if (leftOut > 0) {
    const others = [...new Set(fitting.filter((e) => e.currency !== currency).map((e) => e.currency))].sort();
    warnings.push(otherCurrenciesLeftOut(leftOut, others, currency));
  }
  return { vehicles, currency, warnings };
}

interface Priced {
  units: number;
  entry: QuotableVehicle;
  /** 0 for the preferred type's vehicles, 1 for the others. */
  rank: number;
}

/** One option per vehicle, ranked and capped (see buildQuote); every vehicle fits the trip and shares one currency. */
function rankedOptions(fleet: readonly QuotableVehicle[], request: QuoteRequest, digits: number): QuoteOption[] {
  const quarterHours = quoteQuarterHours(request);
  const validUntil = isoAt(request.now + QUOTE_VALIDITY_SECONDS);
  // Fleets share few distinct rates: each (minimum, hourly) pair is priced once.
  const fees = new Map<string, number>();
  const before = (a: Priced, b: Priced) => a.rank - b.rank || a.units - b.units || (a.entry.slug < b.entry.slug ? -1 : a.entry.slug > b.entry.slug ? 1 : 0);
  // The best MAX_QUOTE_OPTIONS kept in order as the vehicles stream by: a quote to a big fleet never sorts it whole.
  const best: Priced[] = [];
  for (const entry of fleet) {
    const key = `${entry.minimumRate} ${entry.hourlyRate}`;
    let units = fees.get(key);
    if (units === undefined) fees.set(key, (units = vehicleFeeMinorUnits(entry, quarterHours, digits)));
    const p: Priced = { units, entry, rank: request.preferredVehType !== undefined && entry.type === request.preferredVehType ? 0 : 1 };
    if (best.length === MAX_QUOTE_OPTIONS && before(p, best[best.length - 1]) >= 0) continue;
    let i = best.length;
    while (i > 0 && before(p, best[i - 1]) < 0) i--;
    best.splice(i, 0, p);
    if (best.length > MAX_QUOTE_OPTIONS) best.pop();
  }
  return best.map(({ units, entry }) => quoteOptionOf(entry, units, digits, validUntil));
}
