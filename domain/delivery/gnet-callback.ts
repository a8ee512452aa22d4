import { isoAt, type Booking, type Vehicle } from "../trips/booking";

/** A vehicle under GNet's names, whichever names the provider sent it with (plateNo or licensePlate …). */
export function gnetVehicle(v: Vehicle): Vehicle {
  return {
    ...v,
    vehicleType: v.vehicleType ?? v.vehType,
    plateNo: v.plateNo ?? v.licensePlate,
    vColor: v.vColor ?? v.color,
  };
}

/**
 * The body of a GNet-shaped webhook: GNet's callback at the top level, for requesters whose
 * listeners were written for GNet. Absent details are null, as GNet sends them.
 */
export function gnetCallback(b: Booking, location?: { lat: number; lon: number; timestamp: string }) {
  const failed = b.deliveryFailure !== undefined;
  return {
    transactionId: b.transactionId,
    status: b.status,
    totalAmount: b.totalAmount,
    affiliateReservation: {
      updateTime: isoAt(b.updatedAt),
      notes: failed ? [b.notes, b.deliveryFailure].filter(Boolean).join("\n") : b.notes,
      requesterId: b.requesterId,
      requesterResNo: b.requesterResNo,
      providerId: b.providerId,
      providerResNo: b.providerResNo ?? "",
      // The exchange keeps one reservation number per provider; GNet's confirmation code is that number.
      providerResCode: b.providerResNo ?? "",
      action: b.action,
      submissionTarget: b.targetPlatform,
      status: failed ? "FAILED" : b.status,
    },
    fees: b.trip.fees,
    vehicle: b.vehicle ? gnetVehicle(b.vehicle) : null,
    location: location ?? null,
    chauffeur: b.chauffeur ?? null,
    providerNote: b.providerNote ?? "",
  };
}
