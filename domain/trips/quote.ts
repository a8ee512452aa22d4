import type { FleetEntry } from "../fleet/entry";
import { formatCents, toCents } from "../money";
import { isoAt, type QuoteOption } from "./booking";
import { holdsLuggage, luggageCountField } from "./luggage";
import { distanceKm, type Position } from "./places";

/** Road distance is longer than the great circle; 1.3 is the usual urban detour factor. */
export const ROAD_FACTOR = 1.3;
export const AVERAGE_SPEED_KMH = 50;
export const MAX_QUOTE_OPTIONS = 20;
export const QUOTE_VALIDITY_SECONDS = 24 * 3600;

export interface QuoteRequest {
  passengerCount: number;
  /** undefined when the requester did not specify luggage (then luggage does not filter). */
  luggageCount: number | undefined;
  pickup: Position | undefined;
  dropOff: Position | undefined;
  /** The trip's booked duration (GNet's totalTripDuration), when given: the quote is priced on it, not the distance. */
  tripMinutes?: number;
  /** Unix seconds; options are valid for 24 h from now. */
  now: number;
  /** The provider's own type for the requester's preferred vehicle (from the partnership's map): its options come first. */
  preferredVehType?: string;
}

/**
 * Estimated trip duration in quarter hours: great-circle distance × road factor at the average speed,
 * at least 1 h, rounded up to ¼ h; 1 h when either end's position is unknown.
 */
export function estimatedQuarterHours(pickup: Position | undefined, dropOff: Position | undefined): number {
  if (!pickup || !dropOff) return 4;
  const hours = (distanceKm(pickup, dropOff) * ROAD_FACTOR) / AVERAGE_SPEED_KMH;
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

/**
 * The vehicle options of a quote: every active entry that seats the passengers and — only
 * when luggage is specified — holds the luggage; one option per entry, cheapest first (then by code),
 * at most 20, each valid for 24 h. Priced on the booked duration when the trip gives one (an hourly trip),
 * else on the pickup → drop-off distance. With a `preferredVehType`, the options of that type come first
 * (cheapest first among them), then the others.
 */
export function buildQuoteOptions(fleet: readonly FleetEntry[], request: QuoteRequest): QuoteOption[] {
  const quarterHours = request.tripMinutes ? bookedQuarterHours(request.tripMinutes) : estimatedQuarterHours(request.pickup, request.dropOff);
  const validUntil = isoAt(request.now + QUOTE_VALIDITY_SECONDS);
  const priced: Array<{ cents: number; entry: FleetEntry }> = [];
  for (const entry of fleet) {
    if (!entry.active) continue;
    if (entry.maxPassengers < request.passengerCount) continue;
    if (!holdsLuggage(entry.maxLuggage, request.luggageCount)) continue;
    priced.push({ cents: vehicleFeeCents(entry, quarterHours), entry });
  }
  const rank = (entry: FleetEntry) => (request.preferredVehType !== undefined && entry.type === request.preferredVehType ? 0 : 1);
  priced.sort((a, b) => rank(a.entry) - rank(b.entry) || a.cents - b.cents || (a.entry.slug < b.entry.slug ? -1 : a.entry.slug > b.entry.slug ? 1 : 0));
  return priced.slice(0, MAX_QUOTE_OPTIONS).map(({ cents, entry }) => ({
    type: "OTHER",
    code: entry.slug,
    name: entry.name,
    description: entry.description,
    fee: formatCents(cents),
    currency: entry.currency,
    vehType: entry.type,
    passengerCount: String(entry.maxPassengers),
    ...luggageCountField(entry.maxLuggage ?? undefined),
    images: entry.imageUrl ? [entry.imageUrl] : [],
    validUntil,
  }));
}
