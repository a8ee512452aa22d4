import type { Booking, Trip } from "./booking";
import { capChangeLogs, capTransactionErrors } from "../history-cap";
import type { TripStatus } from "./lifecycle";

/**
 * How a booking is stored, whichever database keeps it: the columns queries filter on, and the rest of the
 * booking in JSON text (the trip packet, the change log, the errors). Both adapters store the same strings, so a
 * database copied from SQLite to PostgreSQL reads back the same bookings.
 */
export interface BookingRecord {
  transactionId: string;
  requesterId: string;
  requesterResNo: string;
  providerId: string;
  providerResNo: string | null;
  status: string;
  reservationType: string;
  userid: string;
  sourcePlatform: string;
  targetPlatform: string;
  submitDate: number;
  pickupDate: number;
  updatedAt: number;
  totalAmount: string | null;
  quoteValidUntil: number | null;
  contentHash: string;
  version: number;
  tripPacket: string;
  changeLogs: string;
  transactionErrors: string;
}

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
  warnings?: Booking["warnings"];
}

/** The booking a stored record holds. */
export function toBooking(row: BookingRecord): Booking {
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
    ...(packet.warnings !== undefined ? { warnings: packet.warnings } : {}),
    trip: packet.trip,
    changeLogs: JSON.parse(row.changeLogs),
    transactionErrors: JSON.parse(row.transactionErrors),
  };
}

/** The record that stores a booking at `version`. */
export function toRow(b: Booking, version: number): BookingRecord {
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
    warnings: b.warnings,
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
