import type { AirportDirectory } from "../airports";
import type { Caller } from "../ports";
import type { Booking } from "../trips/booking";
import type { TripStatus } from "../trips/lifecycle";
import { positionOf, type Position } from "../trips/places";
import type { BookingRepository } from "../trips/ports";
import { reportFlightStatus, type FollowFlightDeps } from "./follow-flight";
import { providerUpdateStatus, type ManageTripDeps } from "./manage-trip";
import type { ChauffeurTracking } from "./track-chauffeur";

/** A booking whose provider is a sandbox company and whose trip is not over. */
export interface SandboxTrip {
  transactionId: string;
  providerId: string;
  requesterId: string;
  requesterResNo: string;
  status: TripStatus;
}

/** Where the simulated dispatcher finds its work. */
export interface SandboxTrips {
  /** Open bookings (statuses in SANDBOX_NEXT) of sandbox providers, oldest first, at most `limit`. */
  open(limit: number): Promise<SandboxTrip[]>;
}

/**
 * The simulated dispatcher's pace: one status move per `stepMs`; while en route, `positions` pushes `positionMs` apart.
 * A trip whose flight it reports late (`SandboxDeps.flights`) waits confirmed `flightDelayMs`, then its flight is
 * reported `flightDelayMinutes` late, and the trip plays on.
 */
export interface SandboxSchedule {
  stepMs: number;
  positionMs: number;
  positions: number;
  flightDelayMs: number;
  flightDelayMinutes: number;
}

/**
 * Confirms within 4 s and closes the trip in under a minute (7 moves of 4 s, 8 positions 3 s apart); a flight it
 * reports late is reported 45 min late two minutes after the trip was confirmed.
 */
export const DEFAULT_SANDBOX_SCHEDULE: SandboxSchedule = { stepMs: 4000, positionMs: 3000, positions: 8, flightDelayMs: 120_000, flightDelayMinutes: 45 };

/**
 * The sandbox's simulated flight status (docs/operator.md#a-flight-that-lands-late): the trips whose flight it reports
 * late, and the use case a party's flight status goes through (the route's own).
 */
export interface SandboxFlights {
  follow: FollowFlightDeps;
  delays(trip: SandboxTrip): boolean;
}

/** The move the sandbox makes from each status it answers (the main path of the lifecycle). */
export const SANDBOX_NEXT: Readonly<Partial<Record<TripStatus, TripStatus>>> = {
  BOOKING_REQUEST: "CONFIRMED",
  PENDING: "CONFIRMED",
  CONFIRMED: "ASSIGNED",
  ACKNOWLEDGED: "ASSIGNED",
  ASSIGNED: "EN_ROUTE",
  EN_ROUTE: "ON_LOCATION",
  ON_LOCATION: "PASSENGER_ON_BOARD",
  PASSENGER_ON_BOARD: "COMPLETE",
  STOP: "COMPLETE",
  COMPLETE: "CLOSE",
};

export interface SandboxDeps {
  trips: SandboxTrips;
  bookings: Pick<BookingRepository, "findById">;
  manage: ManageTripDeps;
  tracking: Pick<ChauffeurTracking, "push">;
  /** The provider's first user (uid = netid), as whom the sandbox acts. */
  callerOf(netid: string): Promise<Caller | undefined>;
  airports: AirportDirectory;
  nowMs: () => number;
  schedule: SandboxSchedule;
  /** Bookings the sandbox leaves alone (the demo trip, whose chauffeur the demo moves itself). */
  skip?: (trip: SandboxTrip) => boolean;
  /** Trips whose flight the sandbox reports late (the demo's airport pickup). */
  flights?: SandboxFlights;
  onError?: (error: unknown, trip: SandboxTrip) => void;
}

interface Progress {
  status: TripStatus;
  sinceMs: number;
  pushed: number;
  lastPushMs: number;
}

/** At most this many bookings are looked at per tick, so one tick stays short. */
const PER_TICK = 200;

/**
 * The chauffeur's way in: a start 4–6 km from the pickup (its side chosen by the transaction id, so each trip differs),
 * `steps` positions in between, and the pickup itself.
 */
export function approachRoute(pickup: Position, transactionId: string, steps: number): Position[] {
  let h = 0;
  for (const ch of transactionId) h = (h * 31 + ch.charCodeAt(0)) >>> 0;
  const angle = ((h % 360) * Math.PI) / 180;
  const km = 4 + (h % 3);
  const start = {
    lat: pickup.lat + (km / 111) * Math.sin(angle),
    lon: pickup.lon + (km / (111 * Math.max(0.2, Math.cos((pickup.lat * Math.PI) / 180)))) * Math.cos(angle),
  };
  const round = (n: number) => Math.round(n * 1e5) / 1e5;
  return Array.from({ length: steps + 2 }, (_, i) => ({
    lat: round(start.lat + ((pickup.lat - start.lat) * i) / (steps + 1)),
    lon: round(start.lon + ((pickup.lon - start.lon) * i) / (steps + 1)),
  }));
}

/** The sandbox's reservation number for a booking. */
function sandboxResNo(transactionId: string): string {
  return `SBX-${transactionId.slice(-8).toUpperCase()}`;
}

/**
 * The simulated dispatcher of sandbox companies: it answers every trip they receive as a real provider would —
 * through the same provider update and position push use cases, so webhooks and deliveries fire — giving its
 * reservation number at once, confirming,
 * assigning a chauffeur and vehicle, driving toward the pickup, then on location, on board, complete and closed.
 * It keeps only its pace in memory: after a restart it resumes each booking from its stored status.
 */
export class SandboxDispatcher {
  private readonly progress = new Map<string, Progress>();
  private running = false;

  constructor(private readonly deps: SandboxDeps) {}

  get schedule(): SandboxSchedule {
    return this.deps.schedule;
  }

  /** One pass over the open sandbox bookings: each makes at most one move that is due. Overlapping calls return at once. */
  async tick(): Promise<void> {
    if (this.running) return;
    this.running = true;
    try {
      const trips = await this.deps.trips.open(PER_TICK);
      const seen = new Set<string>();
      for (const trip of trips) {
        seen.add(trip.transactionId);
        if (this.deps.skip?.(trip)) continue;
        try {
          await this.advance(trip);
        } catch (error) {
          // The requester may have cancelled meanwhile: the next tick sees the new status.
          this.deps.onError?.(error, trip);
        }
      }
      for (const id of this.progress.keys()) if (!seen.has(id)) this.progress.delete(id);
    } finally {
      this.running = false;
    }
  }

  private async advance(trip: SandboxTrip): Promise<void> {
    const now = this.deps.nowMs();
    const { schedule } = this.deps;
    let p = this.progress.get(trip.transactionId);
    if (!p || p.status !== trip.status) {
      p = { status: trip.status, sinceMs: now, pushed: 0, lastPushMs: now };
      this.progress.set(trip.transactionId, p);
      if (trip.status === "BOOKING_REQUEST" || trip.status === "PENDING") await this.acknowledge(trip);
      return;
    }
    if (await this.delayFlight(trip, p, now)) return;
    const next = SANDBOX_NEXT[trip.status];
    if (!next) return;
    if (trip.status === "EN_ROUTE") {
      if (now - p.lastPushMs < schedule.positionMs) return;
      const booking = await this.deps.bookings.findById(trip.transactionId);
      const route = booking && this.routeOf(booking);
      if (route && p.pushed < schedule.positions) {
        const caller = await this.deps.callerOf(trip.providerId);
        if (!caller) return;
        const at = route[p.pushed + 1];
        await this.deps.tracking.push(caller, {
          transactionId: trip.transactionId,
          latitude: at.lat,
          longitude: at.lon,
          chfName: "Sandy Box",
          driverId: "SBX-CH-1",
          locationDateTime: new Date(now).toISOString(),
        });
        p.pushed++;
        p.lastPushMs = now;
        return;
      }
    } else if (now - p.sinceMs < schedule.stepMs) return;
    await this.move(trip, next);
  }

  /**
   * Gives the sandbox's reservation number at once, as a dispatch system acknowledges a trip it received, before
   * confirming it on its pace: a requester waiting for it (submitMode WAIT) gets it within its wait.
   */
  private async acknowledge(trip: SandboxTrip): Promise<void> {
    const booking = await this.deps.bookings.findById(trip.transactionId);
    if (!booking || booking.providerResNo !== null) return;
    const caller = await this.deps.callerOf(trip.providerId);
    if (!caller) return;
    await providerUpdateStatus(this.deps.manage, caller, trip.transactionId, { status: trip.status, providerResNo: sandboxResNo(trip.transactionId) });
  }

  /**
   * A confirmed trip whose flight the sandbox reports late waits `flightDelayMs` for its flight's news, then the
   * sandbox, as its provider, reports the landing `flightDelayMinutes` after the scheduled one — through the flight
   * status use case the route calls, so the pickup moves as a real status moves it. True while the trip waits (or was
   * moved this tick); false once its flight has news (after a restart too: the news is stored) or it has no schedule.
   */
  private async delayFlight(trip: SandboxTrip, p: Progress, now: number): Promise<boolean> {
    const flights = this.deps.flights;
    if (!flights || trip.status !== "CONFIRMED" || !flights.delays(trip)) return false;
    const flight = (await this.deps.bookings.findById(trip.transactionId))?.flight;
    if (flight?.scheduledLanding === undefined || flight.estimatedLanding !== undefined || flight.landedAt !== undefined) return false;
    if (now - p.sinceMs < this.deps.schedule.flightDelayMs) return true;
    const caller = await this.deps.callerOf(trip.providerId);
    if (!caller) return true;
    const landing = flight.scheduledLanding + this.deps.schedule.flightDelayMinutes * 60;
    await reportFlightStatus(flights.follow, caller, trip.transactionId, { estimatedArrival: `${new Date(landing * 1000).toISOString().slice(0, 19)}Z` });
    p.sinceMs = now;
    return true;
  }

  private routeOf(booking: Booking): Position[] | undefined {
    const pickup = positionOf(booking.trip.locations.pickup, this.deps.airports);
    return pickup ? approachRoute(pickup, booking.transactionId, this.deps.schedule.positions) : undefined;
  }

  private async move(trip: SandboxTrip, status: TripStatus): Promise<void> {
    const caller = await this.deps.callerOf(trip.providerId);
    if (!caller) return;
    const booking = await this.deps.bookings.findById(trip.transactionId);
    if (!booking) return;
    const route = this.routeOf(booking);
    const where = status === "EN_ROUTE" ? route?.[0] : status === "ON_LOCATION" ? route?.[route.length - 1] : undefined;
    const input: Record<string, unknown> = { status };
    if (status === "CONFIRMED")
      Object.assign(input, {
        providerResNo: booking.providerResNo ?? sandboxResNo(trip.transactionId),
        providerNote: "Answered by the sandbox's simulated dispatcher",
      });
    if (status === "ASSIGNED") {
      input.chauffeur = { chauffeurId: "SBX-CH-1", firstName: "Sandy", lastName: "Box", phoneNumber: "+15555550100" };
      input.vehicle = {
        vehicleId: "SBX-V-1",
        vehicleType: booking.trip.preferredVehicleType || "SEDAN",
        make: "Lincoln",
        model: "Continental",
        plateNo: "SANDBOX",
        vColor: "Black",
      };
    }
    if (where) Object.assign(input, { lat: where.lat, lon: where.lon });
    await providerUpdateStatus(this.deps.manage, caller, trip.transactionId, input);
  }
}
