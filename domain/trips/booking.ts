import type { TripActor, TripStatus } from "./lifecycle";

export type ReservationType = "REGULAR" | "QUOTE";
export type TripAction = "NEW" | "UPDATE" | "CANCEL";

/** A place of the trip as sent; every field a string (lat and lon too, per the spec). */
export interface TripLocation {
  locationType?: string;
  landmark?: string;
  lat?: string;
  lon?: string;
  address?: string;
  city?: string;
  state?: string;
  zipCode?: string;
  country?: string;
  /** Pickup only: ISO 8601 date-time, with or without an offset. */
  time?: string;
  flightInfo?: { airlineCode?: string; flightNumber?: string };
}

export interface Passenger {
  firstName?: string;
  lastName?: string;
  email?: string;
  phoneNumber?: string;
  accountNumber?: string;
}

export interface TripAccount {
  accountNumber?: string;
  accountName?: string;
  callerName?: string;
  callerNumber?: string;
}

/** A fee line; on a quote, one vehicle option (spec "Quote vehicle option"). */
export interface Fee {
  type?: string;
  code?: string;
  name?: string;
  description?: string;
  fee?: string;
  currency?: string;
  vehType?: string;
  passengerCount?: string;
  luggageCount?: string;
  images?: string[];
  validUntil?: string;
}

/** A vehicle option of a quote, as built by the exchange from the provider's fleet. */
export interface QuoteOption extends Fee {
  type: "OTHER";
  code: string;
  name: string;
  description: string;
  fee: string;
  currency: string;
  vehType: string;
  passengerCount: string;
  images: string[];
  validUntil: string;
}

export interface Vehicle {
  vehType?: string;
  make?: string;
  model?: string;
  color?: string;
  licensePlate?: string;
  description?: string;
}

export interface Chauffeur {
  firstName?: string;
  lastName?: string;
  phoneNumber?: string;
  chauffeurId?: string;
}

/** The trip itself: the tripPacket fields a requester sends (CONTRACT §6), as stored. */
export interface Trip {
  reservationType: ReservationType;
  runType?: string;
  reservationDate?: string;
  /** A whole number ≥ 1, as a string (spec). */
  passengerCount: string;
  /** Absent when not specified — never "0" by default (luggageCount rule 4). */
  luggageCount?: string;
  preferredVehicleType?: string;
  specialInstructions?: string;
  locations: { pickup: TripLocation; dropOff?: TripLocation };
  passengers: Passenger[];
  account?: TripAccount;
  fees: Fee[];
}

/** Timestamped record of a change, kept inside the booking (spec changeLogs). */
export interface ChangeLog {
  /** ISO 8601 date-time (UTC). */
  timestamp: string;
  changeSource: string;
  changeDesc: string;
}

/** A delivery or processing error recorded on the booking (spec transactionErrors). */
export interface TransactionError {
  timestamp: string;
  errCode: string;
  errDesc: string;
}

/** One booking (or quote) between a requester and a provider. */
export interface Booking {
  transactionId: string;
  requesterId: string;
  requesterResNo: string;
  providerId: string;
  /** The provider's own reservation number; null until known. */
  providerResNo: string | null;
  status: TripStatus;
  /** uid of the user who submitted the trip. */
  userid: string;
  sourcePlatform: string;
  targetPlatform: string;
  /** Unix seconds. */
  submitDate: number;
  /** Unix seconds: the pickup time read in the pickup place's time zone. */
  pickupDate: number;
  /** Unix seconds of the last change. */
  updatedAt: number;
  /** Decimal string; null while unknown (CONTRACT §10.16). */
  totalAmount: string | null;
  /** Unix seconds until which a quote may be converted into a booking; null when not a quote. */
  quoteValidUntil: number | null;
  /** Fingerprint of the NEW request that created (or converted) it, for idempotent repeats. */
  contentHash: string;
  /** Last action the requester sent. */
  action: TripAction;
  /** The requester's notes (affiliateReservation.notes). */
  notes: string;
  providerNote?: string;
  vehicle?: Vehicle;
  chauffeur?: Chauffeur;
  /** Why delivery to the provider finally failed; set until a retry (shown as affiliateReservation FAILED). */
  deliveryFailure?: string;
  trip: Trip;
  changeLogs: ChangeLog[];
  transactionErrors: TransactionError[];
}

/**
 * Something that happened to a booking, persisted in the same transaction as the change, so that
 * delivery to the provider and webhooks to the requester (issue 5) can be driven from an outbox.
 */
export interface BookingEvent {
  type:
    | "TRIP_SENT"
    | "QUOTE_REQUESTED"
    | "TRIP_UPDATED"
    | "TRIP_CANCELLED"
    | "STATUS_CHANGED"
    | "PROVIDER_DETAILS_CHANGED"
    | "DELIVERED"
    | "DELIVERY_FAILED"
    | "DELIVERY_RETRIED";
  transactionId: string;
  actor: TripActor;
  /** Unix seconds. */
  at: number;
  status: TripStatus;
  previousStatus?: TripStatus;
}

/** Who a caller is to a booking; undefined when it is not a party (and must not learn it exists). */
export function roleOf(booking: Pick<Booking, "requesterId" | "providerId">, netid: string): TripActor | undefined {
  const n = netid.toLowerCase();
  if (booking.requesterId.toLowerCase() === n) return "requester";
  if (booking.providerId.toLowerCase() === n) return "provider";
  return undefined;
}

/** Whether `netid` is the provider of the booking (a company may be both parties). */
export function isProvider(booking: Pick<Booking, "providerId">, netid: string): boolean {
  return booking.providerId.toLowerCase() === netid.toLowerCase();
}

/** Whether `netid` is the requester of the booking. */
export function isRequester(booking: Pick<Booking, "requesterId">, netid: string): boolean {
  return booking.requesterId.toLowerCase() === netid.toLowerCase();
}

/** Unix seconds as an ISO 8601 UTC date-time without milliseconds. */
export function isoAt(unixSeconds: number): string {
  return new Date(unixSeconds * 1000).toISOString().replace(".000Z", "Z");
}
