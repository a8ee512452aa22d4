import type { AirportDirectory } from "../airports";
import type { IntegrationRepository } from "../delivery/ports";
import type { Booking } from "../trips/booking";
import { ETA_STATUSES } from "../trips/booking-view";
import type { Decision } from "../trips/decision";
import { event, log, type ChangeContext } from "../trips/decisions";
import type { TripStatus } from "../trips/lifecycle";
import { parseDateTime } from "../trips/places";
import type { BookingRepository } from "../trips/ports";
import { arrivalPoint, ARRIVAL_STATUSES, clockWithArrival, withinReach, type ArrivalPoint } from "../trips/trip-clock";
import { DEFAULT_ETA_SPEED_KMH, etaFrom, type RoadTimes } from "./eta";
import type { ChauffeurPosition } from "./position";

export interface ArrivalWatchDeps {
  bookings: Pick<BookingRepository, "findById" | "change">;
  integrations: Pick<IntegrationRepository, "get">;
  airports: AirportDirectory;
  /** How long the road to the pickup takes (the great circle × 1.3 by default, or a routing engine). */
  roadTimes: RoadTimes;
  /** Unix milliseconds. */
  nowMs: () => number;
}

/** What the watch remembers of a booking: where its pickup is, its status, whether the arrival is known. */
interface Watched {
  point: ArrivalPoint | undefined;
  status: TripStatus;
  arrived: boolean;
  speedKmh: number;
  providerId: string;
  readAtMs: number;
}

/** A watched booking is read again after this long (a status set on another instance reaches the ETA by then). */
export const WATCH_REFRESH_MS = 30_000;
const MAX_WATCHED = 100_000;

/** When a position was taken (its `locationDateTime`; UTC when it names no zone), in Unix ms; else when it came. */
export function takenAtMs(p: Pick<ChauffeurPosition, "timestamp" | "receivedAt">): number {
  const parsed = parseDateTime(p.timestamp);
  return parsed ? (parsed.naiveUnix - (parsed.offsetMinutes ?? 0) * 60) * 1000 : p.receivedAt;
}

/**
 * The arrival and the ETA from positions (docs/flights.md#arrival, docs/flights.md#eta), kept off the hot path: a
 * booking is read once (then every 30 s) for its pickup, status and the provider's ETA speed; a position far from
 * the pickup costs one distance; only a position within reach, before the arrival is known, changes the booking.
 */
export class ArrivalWatch {
  private readonly watched = new Map<string, Watched>();

  constructor(private readonly deps: ArrivalWatchDeps) {}

  /** The position with its ETA to the pickup while the booking is ASSIGNED or EN_ROUTE (as last read). */
  async withEta(transactionId: string, p: ChauffeurPosition): Promise<ChauffeurPosition> {
    const w = await this.watch(transactionId);
    if (!w?.point || !ETA_STATUSES.has(w.status)) return p;
    const minutes = this.deps.roadTimes.minutesBetween(p, w.point, w.speedKmh);
    return { ...p, eta: etaFrom(takenAtMs(p), minutes) };
  }

  /** After a position is kept: the booking's arrival, when this is the first within reach sent from ASSIGNED on. */
  async seen(transactionId: string, p: ChauffeurPosition): Promise<void> {
    const w = await this.watch(transactionId);
    if (!w?.point || w.arrived || !withinReach(w.point, p)) return;
    const ctx: ChangeContext = { now: Math.floor(this.deps.nowMs() / 1000), netid: w.providerId, uid: "positions" };
    const at = Math.floor(takenAtMs(p) / 1000);
    const outcome = await this.deps.bookings.change({ transactionId }, (current) => decideArrival(current, at, ctx));
    if (outcome) Object.assign(w, outcome);
  }

  /** A status this instance saw the provider set: the ETA follows it at once. */
  noteStatus(transactionId: string, status: TripStatus): void {
    const w = this.watched.get(transactionId);
    if (w) w.status = status;
  }

  private async watch(transactionId: string): Promise<Watched | undefined> {
    const now = this.deps.nowMs();
    const known = this.watched.get(transactionId);
    if (known && now - known.readAtMs < WATCH_REFRESH_MS) return known;
    const b = await this.deps.bookings.findById(transactionId);
    if (!b) return undefined;
    const speed = (await this.deps.integrations.get(b.providerId))?.policies?.etaSpeedKmh ?? DEFAULT_ETA_SPEED_KMH;
    const w: Watched = {
      point: arrivalPoint(b.trip.locations.pickup, this.deps.airports),
      status: b.status,
      arrived: b.clock?.arrivedAt !== undefined,
      speedKmh: speed,
      providerId: b.providerId,
      readAtMs: now,
    };
    if (!known && this.watched.size >= MAX_WATCHED) this.watched.clear();
    this.watched.set(transactionId, w);
    return w;
  }
}

/**
 * The chauffeur within reach of the pickup at `arrivedAt` (Unix seconds, the position's time taken): recorded once,
 * from ASSIGNED until the passenger is on board, with a changeLogs line and `booking.arrived`; an ON_LOCATION sent more
 * than 5 min before it flags the booking. Answers the booking's status and whether its arrival is known.
 */
export function decideArrival(
  current: Booking | undefined,
  arrivedAt: number,
  ctx: ChangeContext,
): Decision<{ status: TripStatus; arrived: boolean } | undefined> {
  if (!current) return { result: undefined };
  const known = { status: current.status, arrived: current.clock?.arrivedAt !== undefined };
  if (known.arrived || !ARRIVAL_STATUSES.has(current.status)) return { result: known };
  const clock = clockWithArrival(current.clock, arrivedAt);
  const flagged = clock.flags?.length ? `; flagged ${clock.flags.join(", ")}` : "";
  const next: Booking = {
    ...current,
    clock,
    updatedAt: ctx.now,
    changeLogs: [...current.changeLogs, log(ctx, "provider", `chauffeur arrived at the pickup at ${clock.arrivedAt} (positions)${flagged}`)],
  };
  return { result: { status: current.status, arrived: true }, write: { booking: next, events: [event(next, "ARRIVED", "provider", ctx)] } };
}
