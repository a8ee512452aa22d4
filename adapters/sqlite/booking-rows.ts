import { getTableColumns } from "drizzle-orm";
import type { Booking, Trip } from "../../domain/trips/booking";
import { capChangeLogs, capTransactionErrors } from "../../domain/history-cap";
import type { TripStatus } from "../../domain/trips/lifecycle";
import { bookings } from "./schema";
import { SqliteOutbox } from "./delivery-repositories";

// A booking's row: the columns queries filter on, and the rest of the booking in the trip_packet JSON; and the
// statements that write it, shared by the service's connection and the booking writer's.

export type BookingRow = typeof bookings.$inferSelect;

/** What the trip_packet JSON column holds besides the trip itself. */
interface StoredPacket {
  trip: Trip;
  action: Booking["action"];
  notes: string;
  providerNote?: string;
  vehicle?: Booking["vehicle"];
  chauffeur?: Booking["chauffeur"];
  providerUpdate?: Booking["providerUpdate"];
  affiliateExtra?: Booking["affiliateExtra"];
  submitMode?: Booking["submitMode"];
  deliveryFailure?: string;
}

export function toBooking(row: BookingRow): Booking {
  const packet = JSON.parse(row.tripPacket) as StoredPacket;
  return {
    transactionId: row.transactionId,
    requesterId: row.requesterId,
    requesterResNo: row.requesterResNo,
    providerId: row.providerId,
    providerResNo: row.providerResNo,
    status: row.status as TripStatus,
    userid: row.userid,
    sourcePlatform: row.sourcePlatform,
    targetPlatform: row.targetPlatform,
    submitDate: row.submitDate,
    pickupDate: row.pickupDate,
    updatedAt: row.updatedAt,
    totalAmount: row.totalAmount,
    quoteValidUntil: row.quoteValidUntil,
    contentHash: row.contentHash,
    action: packet.action,
    notes: packet.notes,
    ...(packet.providerNote !== undefined ? { providerNote: packet.providerNote } : {}),
    ...(packet.vehicle !== undefined ? { vehicle: packet.vehicle } : {}),
    ...(packet.chauffeur !== undefined ? { chauffeur: packet.chauffeur } : {}),
    ...(packet.providerUpdate !== undefined ? { providerUpdate: packet.providerUpdate } : {}),
    ...(packet.affiliateExtra !== undefined ? { affiliateExtra: packet.affiliateExtra } : {}),
    ...(packet.submitMode !== undefined ? { submitMode: packet.submitMode } : {}),
    ...(packet.deliveryFailure !== undefined ? { deliveryFailure: packet.deliveryFailure } : {}),
    trip: packet.trip,
    changeLogs: JSON.parse(row.changeLogs),
    transactionErrors: JSON.parse(row.transactionErrors),
  };
}

export function toRow(b: Booking, version: number): BookingRow {
  const packet: StoredPacket = {
    trip: b.trip,
    action: b.action,
    notes: b.notes,
    providerNote: b.providerNote,
    vehicle: b.vehicle,
    chauffeur: b.chauffeur,
    providerUpdate: b.providerUpdate,
    affiliateExtra: b.affiliateExtra,
    submitMode: b.submitMode,
    deliveryFailure: b.deliveryFailure,
  };
  return {
    transactionId: b.transactionId,
    requesterId: b.requesterId,
    requesterResNo: b.requesterResNo,
    providerId: b.providerId,
    providerResNo: b.providerResNo,
    status: b.status,
    reservationType: b.trip.reservationType,
    userid: b.userid,
    sourcePlatform: b.sourcePlatform,
    targetPlatform: b.targetPlatform,
    submitDate: b.submitDate,
    pickupDate: b.pickupDate,
    updatedAt: b.updatedAt,
    totalAmount: b.totalAmount,
    quoteValidUntil: b.quoteValidUntil,
    contentHash: b.contentHash,
    version,
    tripPacket: JSON.stringify(packet),
    // Bounded history: a booking changed forever keeps the newest entries and a count of the rest.
    changeLogs: JSON.stringify(capChangeLogs(b.changeLogs)),
    transactionErrors: JSON.stringify(capTransactionErrors(b.transactionErrors)),
  };
}

/** The statements the booking writer runs, by index (see BookingWriter). */
export const BOOKING_COLUMNS = Object.entries(getTableColumns(bookings));
const IMMUTABLE = new Set(["transactionId", "requesterId", "requesterResNo", "submitDate", "userid"]);
export const MUTABLE_COLUMNS = BOOKING_COLUMNS.filter(([key]) => !IMMUTABLE.has(key));
export const INSERT_BOOKING_SQL = `INSERT INTO bookings (${BOOKING_COLUMNS.map(([, c]) => `"${c.name}"`).join(", ")}) VALUES (${BOOKING_COLUMNS.map(() => "?").join(", ")})`;
export const UPDATE_BOOKING_SQL = `UPDATE bookings SET ${MUTABLE_COLUMNS.map(([, c]) => `"${c.name}" = ?`).join(", ")} WHERE transaction_id = ? AND version = ?`;
export const [INSERT_BOOKING, UPDATE_BOOKING, INSERT_OUTBOX] = [0, 1, 2];
export const BOOKING_WRITER_STATEMENTS = [INSERT_BOOKING_SQL, UPDATE_BOOKING_SQL, SqliteOutbox.INSERT_SQL];

