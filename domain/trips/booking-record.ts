import type { Booking, Trip } from "./booking";
import { offerDue } from "./offers";
import { fareDue } from "./final-fare";
import { assignDue } from "./assignment-deadline";
import { capChangeLogs, capTransactionErrors } from "../history-cap";
import { utf8Length } from "./booking-bounds";
import { settledAmount } from "./settled-amount";
import { flightDue } from "./flights";

/** The booking's members stored as they are, each in a column of its own. */
const COLUMNS = [
  "transactionId", "requesterId", "requesterResNo", "providerId", "providerResNo", "status", "userid", "sourcePlatform", "targetPlatform",
  "submitDate", "pickupDate", "updatedAt", "totalAmount", "quoteValidUntil", "contentHash",
] as const;
/** The booking's members the trip_packet JSON column holds beside the trip, in the order they are written. */
const PACKED = [
  "action", "notes", "providerNote", "vehicle", "chauffeur", "providerUpdate", "affiliateExtra", "submitMode", "deliveryFailure", "warnings", "quoted",
  "terms",
  "acceptBy", "acceptWithinMinutes", "fallback", "offers", "reason", "providerCancelled", "flight", "clock", "finalFare",
  "giveBackRecovery", "costRecovery", "unassignedWarning",
] as const;

/**
 * How a booking is stored, whichever database keeps it: the columns queries filter on, and the rest of the
 * booking in JSON text (the trip packet, the change log, the errors). Both adapters store the same strings, so a
 * database copied from SQLite to PostgreSQL reads back the same bookings.
 */
export interface BookingRecord extends Omit<Pick<Booking, (typeof COLUMNS)[number]>, "status"> {
  status: string;
  reservationType: string;
  version: number;
  tripPacket: string;
  changeLogs: string;
  transactionErrors: string;
  /**
   * When the offer watch must next act (Unix seconds), derived from the booking: an offer's deadline
   * (domain/trips/offers.ts), else the end of the fare's window (domain/trips/final-fare.ts), else the assignment
   * deadline of an accepted booking without a chauffeur (domain/trips/assignment-deadline.ts).
   */
  offerDue: number | null;
  /** What the booking leaves owing for statements, in minor units of `currency` (domain/trips/settled-amount.ts). */
  settleUnits: number | null;
  /** The currency its fee lines name, upper case; null when none does. */
  currency: string | null;
  /** When its fare can no longer change (Unix seconds); null before the trip ends. */
  fareFinalAt: number | null;
  /** When its flight is expected to land while the booking follows it (domain/trips/flights.ts:flightDue); else null. */
  flightDue: number | null;
}

/** What the trip_packet JSON column holds: the trip and the PACKED members. */
type StoredPacket = { trip: Trip } & Pick<Booking, (typeof PACKED)[number]>;

/** The booking a stored record holds. */
export function toBooking(row: BookingRecord): Booking {
  const packet = JSON.parse(row.tripPacket) as StoredPacket;
  const booking: Record<string, unknown> = {};
  for (const key of COLUMNS) booking[key] = row[key];
  booking.action = packet.action;
  booking.notes = packet.notes;
  for (const key of PACKED) if (packet[key] !== undefined) booking[key] = packet[key];
  booking.trip = packet.trip;
  booking.changeLogs = JSON.parse(row.changeLogs);
  booking.transactionErrors = JSON.parse(row.transactionErrors);
  return booking as unknown as Booking;
}

/** The record that stores a booking at `version`. */
export function toRow(b: Booking, version: number): BookingRecord {
  const packet: Record<string, unknown> = { trip: b.trip };
  for (const key of PACKED) packet[key] = b[key];
  const record: Record<string, unknown> = {};
  for (const key of COLUMNS) record[key] = b[key];
  return {
    ...(record as Pick<BookingRecord, (typeof COLUMNS)[number]>),
    reservationType: b.trip.reservationType,
    version,
    tripPacket: JSON.stringify(packet),
    // Bounded history: a booking changed forever keeps the newest entries and a count of the rest.
    changeLogs: JSON.stringify(capChangeLogs(b.changeLogs)),
    transactionErrors: JSON.stringify(capTransactionErrors(b.transactionErrors)),
    offerDue: offerDue(b) ?? fareDue(b) ?? assignDue(b),
    ...settledAmount(b),
    flightDue: flightDue(b),
  };
}

/** The record's members kept as JSON text: what the parties sent and the booking's history, the ones that may be large. */
export const JSON_MEMBERS = ["tripPacket", "changeLogs", "transactionErrors"] as const;

/**
 * The bytes (UTF-8) of `before`'s JSON members that `after` rewrites: what a change of a stored booking replaces.
 * PostgreSQL keeps a replaced row version until VACUUM, so the change's company is charged it like its live events
 * (docs/security.md#per-company-store-bounds); a member the change leaves as it was is not rewritten, nor charged.
 */
export function replacedBytes(before: BookingRecord, after: BookingRecord): number {
  let bytes = 0;
  for (const key of JSON_MEMBERS) if (before[key] !== after[key]) bytes += utf8Length(before[key]);
  return bytes;
}
