import type { AirportDirectory } from "../airports";
import { ConflictError } from "../errors";
import { greatCircleKm, type Position } from "../geo";
import type { TripClock, TripLocation } from "./booking";
import { skippedStates, type TripStatus } from "./lifecycle";
import { airportOf, readCoordinate } from "./places";
import { isAirportPickup } from "./terms";

/**
 * The trip's clock (docs/flights.md#arrival), pure: when the chauffeur arrived by its positions, when the provider
 * said ON_LOCATION and PASSENGER_ON_BOARD, and the flag an ON_LOCATION sent well before the arrival earns.
 */
export type { TripClock, TripFlag } from "./booking";

/** An ON_LOCATION sent more than this before the arrival its positions tell flags the booking. */
export const ON_LOCATION_EARLY_SECONDS = 5 * 60;
/** The reach of a pickup placed by its coordinates (m). */
export const ARRIVAL_REACH_M = 150;
/** The reach of an airport pickup, around the airport's position (m). */
export const AIRPORT_ARRIVAL_REACH_M = 1500;
/** The statuses in which a position can tell the arrival: assigned, until the passenger is on board. */
export const ARRIVAL_STATUSES: ReadonlySet<TripStatus> = new Set(["ASSIGNED", "EN_ROUTE", "ON_LOCATION"]);

/** Where the chauffeur counts as arrived: a position and the reach around it. */
export interface ArrivalPoint extends Position {
  reachM: number;
}

/**
 * The pickup's arrival point: an airport pickup's airport (the directory's position, else the pickup's own
 * coordinates) with 1.5 km around it; any other pickup's coordinates with 150 m. Undefined when the pickup has no
 * position of its own (placed by city only: no position tells an arrival there).
 */
export function arrivalPoint(pickup: TripLocation | undefined, airports: AirportDirectory): ArrivalPoint | undefined {
  if (!pickup) return undefined;
  const lat = readCoordinate(pickup.lat, 90);
  const lon = readCoordinate(pickup.lon, 180);
  const own = lat !== undefined && lon !== undefined ? { lat, lon } : undefined;
  if (isAirportPickup(pickup, airports)) {
    const airport = airportOf(pickup, airports) ?? lookupCode(pickup, airports);
    const at = airport ? { lat: airport.lat, lon: airport.lon } : own;
    return at ? { ...at, reachM: AIRPORT_ARRIVAL_REACH_M } : undefined;
  }
  return own ? { ...own, reachM: ARRIVAL_REACH_M } : undefined;
}

function lookupCode(pickup: TripLocation, airports: AirportDirectory) {
  for (const v of [pickup.airportCode, pickup.address, pickup.landmark])
    if (typeof v === "string" && /^[A-Za-z]{3}$/.test(v.trim())) {
      const hit = airports.lookup(v.trim());
      if (hit) return hit;
    }
  return undefined;
}

/** Whether a position is within reach of the arrival point. */
export function withinReach(point: ArrivalPoint, p: Position): boolean {
  return greatCircleKm(point.lat, point.lon, p.lat, p.lon) * 1000 <= point.reachM;
}

const toIso = (unix: number) => new Date(unix * 1000).toISOString().replace(".000Z", "Z");
const seconds = (iso: string | undefined) => (iso === undefined ? undefined : Math.floor(Date.parse(iso) / 1000));

/** The flags the clock earns: ON_LOCATION_BEFORE_ARRIVAL when ON_LOCATION came more than 5 min before the arrival. */
function flagged(clock: TripClock): TripClock {
  const arrived = seconds(clock.arrivedAt);
  const said = seconds(clock.onLocationAt);
  const early = arrived !== undefined && said !== undefined && said < arrived - ON_LOCATION_EARLY_SECONDS;
  const { flags: _, ...rest } = clock;
  return early ? { ...rest, flags: ["ON_LOCATION_BEFORE_ARRIVAL"] } : rest;
}

/**
 * The clock after a provider's status move `from` → `to` at `now` (Unix seconds): ON_LOCATION and
 * PASSENGER_ON_BOARD are stamped the first time they are reached or passed over; undefined when nothing changes.
 */
export function clockAfterMove(clock: TripClock | undefined, from: TripStatus, to: TripStatus, now: number): TripClock | undefined {
  const passed = new Set([to, ...(skippedStates(from, to) ?? [])]);
  const next: TripClock = { ...clock };
  if (passed.has("ON_LOCATION") && next.onLocationAt === undefined) next.onLocationAt = toIso(now);
  if (passed.has("PASSENGER_ON_BOARD") && next.onBoardAt === undefined) next.onBoardAt = toIso(now);
  if (next.onLocationAt === clock?.onLocationAt && next.onBoardAt === clock?.onBoardAt) return undefined;
  return flagged(next);
}

/**
 * When a NO_SHOW may be sent (docs/flights.md#waiting-and-no-show), Unix seconds: the free waiting minutes after the
 * later of the arrival the positions tell and the pickup (the pickup alone without positions).
 */
export function noShowAllowedFrom(b: { pickupDate: number; clock?: TripClock; terms?: { freeWaitingMinutes: number } }): number {
  const arrived = seconds(b.clock?.arrivedAt);
  return Math.max(arrived ?? b.pickupDate, b.pickupDate) + (b.terms?.freeWaitingMinutes ?? 0) * 60;
}

/** Throws 409 NO_SHOW_TOO_EARLY, naming the instant it is allowed from, while the chauffeur must still wait. */
export function assertNoShowTime(b: { pickupDate: number; clock?: TripClock; terms?: { freeWaitingMinutes: number } }, now: number): void {
  const from = noShowAllowedFrom(b);
  if (now >= from) return;
  const allowedFrom = toIso(from);
  throw new ConflictError(
    `A NO_SHOW waits for the free waiting minutes (${b.terms?.freeWaitingMinutes ?? 0}) after the chauffeur's arrival or the pickup, ` +
      `whichever is later: it may be sent from ${allowedFrom}`,
    "NO_SHOW_TOO_EARLY",
    { status: "NO_SHOW", allowedFrom },
  );
}

/** The clock with the arrival at `arrivedAt` (Unix seconds), flagged when ON_LOCATION came too early. */
export function clockWithArrival(clock: TripClock | undefined, arrivedAt: number): TripClock {
  return flagged({ ...clock, arrivedAt: toIso(arrivedAt) });
}
