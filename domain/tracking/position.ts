import { TERMINAL_STATUSES, type TripStatus } from "../trips/lifecycle";
import type { TripActor } from "../trips/lifecycle";
import type { Booking } from "../trips/booking";
import type { Eta } from "./eta";

/** A chauffeur's reported position for one booking. */
export interface ChauffeurPosition {
  lat: number;
  lon: number;
  /** ISO 8601 date-time of the fix: the device's locationDateTime when sent, else when the exchange received it. */
  timestamp: string;
  /** Unix milliseconds the exchange received it. */
  receivedAt: number;
  chfId?: string;
  chfName?: string;
  phoneNo?: string;
  griddID?: string;
  /** The ETA to the pickup from this position (docs/flights.md#eta), when the booking was ASSIGNED or EN_ROUTE. */
  eta?: Eta;
}

/** Where positions live: the last one per booking and a bounded trail. */
export interface PositionStore {
  /** The booking's last position, if any. */
  last(transactionId: string): Promise<ChauffeurPosition | undefined>;
  /** The booking's recent positions, oldest first (bounded). */
  trail(transactionId: string): Promise<ChauffeurPosition[]>;
  /** Keeps a position as the booking's last one and adds it to the trail (written in batches; read back at once). */
  save(transactionId: string, position: ChauffeurPosition): void;
}

/**
 * The last position, synchronously, so that a webhook built inside a booking change can carry it (a store
 * over the network answers from what it read just before the change).
 */
export interface PositionLookup {
  lastSync(transactionId: string): ChauffeurPosition | undefined;
}

/** At most one pushed position per booking per this many milliseconds. */
export const MIN_PUSH_INTERVAL_MS = 1000;

/** Whether the trip is over for the requester's eyes: complete, or in a final state. */
export function tripEnded(status: TripStatus): boolean {
  return status === "COMPLETE" || TERMINAL_STATUSES.has(status);
}

/** The statuses `tripEnded` is true for (stores filter on them). */
export const ENDED_STATUSES: readonly TripStatus[] = ["COMPLETE", ...TERMINAL_STATUSES];

/**
 * The position a party may see: the provider always sees its chauffeur; the requester only while the trip is
 * under way — once it is complete or ended, where the chauffeur goes is no longer the requester's business.
 */
export function visiblePosition(status: TripStatus, role: TripActor, position: ChauffeurPosition | undefined): ChauffeurPosition | undefined {
  if (!position) return undefined;
  return role === "requester" && tripEnded(status) ? undefined : position;
}

/** The position as bookings and webhooks show it, with the ETA it gave (shown apart, while the booking still heads there). */
export function positionView(p: ChauffeurPosition): { lat: number; lon: number; timestamp: string; eta?: Eta } {
  return { lat: p.lat, lon: p.lon, timestamp: p.timestamp, ...(p.eta ? { eta: p.eta } : {}) };
}

/** The position a booking view shows its `role`. */
export async function shownPosition(positions: PositionStore, booking: Pick<Booking, "status" | "transactionId">, role: TripActor) {
  const p = visiblePosition(booking.status, role, await positions.last(booking.transactionId));
  return p ? positionView(p) : undefined;
}
