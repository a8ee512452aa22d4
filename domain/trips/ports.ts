import type { AnnouncedMessage } from "../delivery/ports";
import type { NewLiveEvent } from "../events/live-events";
import type { Booking, BookingEvent, BookingSummary, CostRecoveryRecord } from "./booking";
import type { TripActor, TripStatus } from "./lifecycle";
import type { BookingRef } from "./send-trip-request";
import type { Decision } from "./decision";
import type { FlightQuery, FlightStatusAnswer } from "./flight-watch";

export type { BookingWrite, Decision } from "./decision";
export type { BookingSummary } from "./booking";


export interface BookingListQuery {
  netid: string;
  role?: TripActor;
  status?: TripStatus;
  requesterResNo?: string;
  /** Only bookings this company (its netid as stored) requested. */
  requesterId?: string;
  /** Pickup between these Unix seconds, both included. */
  pickupFrom?: number;
  pickupTo?: number;
  limit: number;
  offset: number;
}

export interface BookingRepository {
  findById(transactionId: string): Promise<Booking | undefined>;
  /**
   * The booking `netid` (its exact stored netid) knows by its own reservation number: the requester's
   * requesterResNo, or the provider's providerResNo (the newest, should a provider have reused one).
   */
  findByResNo(side: TripActor, netid: string, resNo: string): Promise<Booking | undefined>;
  /** The company's bookings as requester and/or provider, newest first. */
  list(query: BookingListQuery): Promise<{ items: BookingSummary[]; total: number }>;
  /**
   * Reads the booking `ref` names (undefined when there is none), runs `decide` on it and persists the
   * write it returns — booking and events — all in ONE transaction, so check-then-write is atomic.
   * `decide` must be synchronous and pure: it runs inside the transaction. Errors it throws roll back.
   */
  change<R>(ref: BookingRef, decide: (current: Booking | undefined) => Decision<R>): Promise<R>;
}

/**
 * What every booking change announces, on whichever path it commits: `messages` runs inside the change's
 * transaction (its lookups answer synchronously) and its rows commit or roll back with the booking; `wake` is
 * called once a change wrote some.
 */
export interface ChangeAnnouncer {
  messages(events: BookingEvent[], booking: Booking): AnnouncedMessage[];
  wake(): void;
  /**
   * The change's live events (for event streams), written in its transaction like `messages`. `replacedBytes`: what
   * the change replaces of the stored booking (domain/trips/booking-record.ts:replacedBytes), charged with them.
   */
  live?(events: BookingEvent[], booking: Booking, replacedBytes?: number): NewLiveEvent[];
}

/** A stored result of a request made under an Idempotency-Key. */
export interface StoredResult {
  requestHash: string;
  status: number;
  body: string;
}

/** What reserving an Idempotency-Key found. */
export type Reservation = { kind: "reserved" } | { kind: "stored"; result: StoredResult } | { kind: "in-progress"; requestHash: string };

/**
 * Idempotency-Key results, scoped per company. A key is reserved before its request runs, so a second
 * request with it meanwhile sees it; the result is stored when the request ends, or the key released.
 */
export interface IdempotencyStore {
  /** Claims (netid, key) for a request about to run, or says what holds it. */
  reserve(netid: string, key: string, requestHash: string, now: number): Promise<Reservation>;
  /** Stores the result of a reserved key's request (replayed from now on). */
  complete(netid: string, key: string, result: StoredResult, now: number): Promise<void>;
  /** Gives a reserved key up: the next request with it runs. */
  release(netid: string, key: string): Promise<void>;
}

/**
 * The bookings the offer watch must act on (docs/terms.md#the-acceptance-deadline-acceptby,
 * docs/terms.md#the-cascade-fallback): those whose `offer_due` (domain/trips/offers.ts) has
 * come. Claiming leases them to this instance for a while (their `offer_due` moved forward), so of several instances
 * sharing the database one handles each; a lease an instance never finished (it stopped) comes due again.
 */
export interface OfferDeadlines {
  /** Up to `limit` due bookings' transactionIds, earliest due first, leased for `leaseSeconds`. */
  claimDue(now: number, limit: number, leaseSeconds: number): Promise<string[]>;
}

/**
 * Cost recoveries as stored (docs/settlement.md#give-back-recovery), for statements: each is written with the
 * give-back that owes it; read by company pair or company, for pickups in [from, to) (Unix seconds; a statement's
 * period is the pickup's UTC month), earliest pickup first.
 */
export interface CostRecoveries {
  /** Between two companies, both directions (either may be the requester). */
  between(a: string, b: string, from: number, to: number): Promise<CostRecoveryRecord[]>;
  /** Every recovery `netid` is a party of, as requester or as provider. */
  of(netid: string, from: number, to: number): Promise<CostRecoveryRecord[]>;
}

/** A place an address search found (docs/places.md#drop-offs-and-stops). */
export interface GeocodedPlace {
  lat: number;
  lon: number;
  /** How the geocoder names it (`200 Park Avenue, New York, NY, United States`). */
  label: string;
  /** ISO 3166-1 alpha-2, when the geocoder says. */
  country?: string;
}

/**
 * Where an address is, asked of a geocoder (a Photon- or Nominatim-compatible search, GEOCODER_URL). Optional: a
 * service without one places addresses by their city (docs/places.md#drop-offs-and-stops).
 */
export interface Geocoder {
  /**
   * The places `text` (an address, a place's name) may be, best first, at most `limit`. Never throws: [] when
   * nothing matches or the geocoder cannot answer now (slow, down, refused by the outbound guard).
   */
  search(text: string, limit: number): Promise<GeocodedPlace[]>;
}

/**
 * A flight-data API (docs/flights.md#the-flight-status-poller): what it knows of a flight's landing. Undefined when it
 * knows no such flight; a failure (down, slow, refused, an answer that is not its JSON) throws an Error whose message
 * names no secret (never the key), for the poller to log and back off.
 */
export interface FlightStatus {
  statusOf(flight: FlightQuery): Promise<FlightStatusAnswer | undefined>;
}

/** Bookings whose flight is expected to land between two instants (Unix seconds, both included) and that still follow it. */
export interface LandingsDue {
  /** At most `limit`, the soonest landing first (the `flight_due` column, domain/trips/flights.ts:flightDue). */
  landingBetween(from: number, to: number, limit: number): Promise<Booking[]>;
}
