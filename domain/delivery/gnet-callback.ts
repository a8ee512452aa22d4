import { isoAt, type Booking, type Vehicle } from "../trips/booking";
import { CaselessNames, EXCHANGE_OWNED_NAMES } from "../trips/reserved-names";

/** A vehicle under GNet's names, whichever names the provider sent it with (plateNo or licensePlate …). */
export function gnetVehicle(v: Vehicle): Vehicle {
  return {
    ...v,
    vehicleType: v.vehicleType ?? v.vehType,
    plateNo: v.plateNo ?? v.licensePlate,
    vColor: v.vColor ?? v.color,
  };
}

/** A requester's unnamed affiliateReservation members never take these names (GNet's own, or the provider's). */
const RESERVED_AFFILIATE = new CaselessNames([
  "__proto__",
  "updateTime",
  "notes",
  "requesterId",
  "requesterResNo",
  "providerId",
  "providerResNo",
  "providerResCode",
  "resNo",
  "action",
  "submissionTarget",
  "status",
  "providerNote",
  ...EXCHANGE_OWNED_NAMES,
]);

/**
 * GNet's affiliateReservation of a booking: both parties and their reservation numbers (the provider's "" until
 * known), the last action, where it was submitted, and its status — FAILED while delivery to the provider is
 * failing (the reason then ends the notes), else the booking's status. With the requester's members no schema
 * names, unless GNet or the provider owns the name.
 */
export function gnetAffiliateReservation(b: Booking) {
  const failing = b.deliveryFailure !== undefined;
  const extra: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(b.affiliateExtra ?? {})) if (!RESERVED_AFFILIATE.has(k)) extra[k] = v;
  return {
    ...extra,
    updateTime: isoAt(b.updatedAt),
    notes: failing ? [b.notes, b.deliveryFailure].filter(Boolean).join("\n") : b.notes,
    requesterId: b.requesterId,
    requesterResNo: b.requesterResNo,
    providerId: b.providerId,
    providerResNo: b.providerResNo ?? "",
    // The exchange keeps one reservation number per provider; GNet's confirmation code is that number.
    providerResCode: b.providerResNo ?? "",
    action: b.action,
    submissionTarget: b.targetPlatform,
    status: failing ? "FAILED" : b.status,
  };
}

/**
 * The body of a GNet-shaped webhook: GNet's callback at the top level, for requesters whose
 * listeners were written for GNet. Absent details are null, as GNet sends them.
 */
export function gnetCallback(b: Booking, location?: { lat: number; lon: number; timestamp: string }) {
  const { updateTime, notes, requesterId, requesterResNo, providerId, providerResNo, providerResCode, action, submissionTarget, status } =
    gnetAffiliateReservation(b);
  return {
    transactionId: b.transactionId,
    status: b.status,
    totalAmount: b.totalAmount,
    affiliateReservation: { updateTime, notes, requesterId, requesterResNo, providerId, providerResNo, providerResCode, action, submissionTarget, status },
    fees: b.trip.fees,
    ...(b.terms !== undefined ? { terms: b.terms } : {}),
    vehicle: b.vehicle ? gnetVehicle(b.vehicle) : null,
    location: location ? { lat: location.lat, lon: location.lon, timestamp: location.timestamp } : null,
    chauffeur: b.chauffeur ?? null,
    providerNote: b.providerNote ?? "",
  };
}
