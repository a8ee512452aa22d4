// What a booking keeps of the flight its pickup meets (docs/flights.md#flights): plain records, a leaf the booking and
// the flight rules both import.

/** Why a flight moved the pickup: it lands later or earlier than the pickup was planned for. */
export type MoveCause = "FLIGHT_DELAY" | "FLIGHT_EARLY";

/** One move of the pickup by its flight: the pickup before and after (Unix seconds), and why. */
export interface PickupMove {
  from: number;
  to: number;
  cause: MoveCause;
}

/**
 * What a booking keeps of the flight its pickup meets (docs/flights.md#flights). Unix seconds; the offset in minutes
 * (pickup − scheduled landing), absent while the scheduled landing is unknown.
 */
export interface FlightRecord {
  pickupOffsetMinutes?: number;
  scheduledLanding?: number;
  /** The latest estimated landing a flight status reported. */
  estimatedLanding?: number;
  /** When the flight landed, once a status said so. */
  landedAt?: number;
  /** The pickup before any flight moved it (the requester's own, set again by its UPDATE of the pickup). */
  originalPickup: number;
  /** The last move, and when it was made. */
  lastMove?: PickupMove & { at: number };
}
