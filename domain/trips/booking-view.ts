import { offersView, seenBy } from "./offer-views";
import { isoAt, roleOf, type Booking, type BookingSummary } from "./booking";
import { STATUS_LABELS } from "./lifecycle";
import { finalFareView } from "./final-fare";
import { shownPosition, type PositionStore, type positionView } from "../tracking/position";
import { affiliateParties, RESERVED_TRIP_NAMES, shownExtras } from "./reserved-names";

/** The chauffeur's position as the viewer may see it (none for a requester once the trip is over). */
type PositionView = ReturnType<typeof positionView>;

/**
 * The booking as `caller` sees it (docs/terms.md#who-sees-what): all of it for its requester, its own offer for a
 * provider (one that lost it included, without any position); with the chauffeur's position when that party may see it.
 */
export async function bookingViewFor(b: Booking, caller: { netid: string }, positions: PositionStore) {
  const { booking, location } = await seenWithPosition(b, caller, positions);
  return bookingView(booking, location);
}

/** The booking as `caller` sees it, and the chauffeur's position as it may see it (none for a provider that lost it). */
export async function seenWithPosition(b: Booking, caller: { netid: string }, positions: PositionStore) {
  const seen = seenBy(b, caller.netid);
  if (seen?.viewer === "former") return { booking: seen.booking, viewer: seen.viewer, location: undefined };
  const location = await shownPosition(positions, b, roleOf(b, caller.netid) ?? "requester");
  return { booking: seen?.booking ?? b, viewer: seen?.viewer ?? "requester", location };
}

/** GNet's trip fields beyond the spec's table, shown when the trip has them. */
const GNET_TRIP_FIELDS = ["notes", "namesignInstructions", "eventName", "sourceVendor", "origination", "totalTripDuration"] as const;

/** The trip's own fields as every read shows them (the tripPacket and GNet's reservation object). */
export function tripFields(b: Booking) {
  const trip = b.trip;
  return {
    reservationType: trip.reservationType,
    runType: trip.runType ?? "",
    reservationDate: trip.reservationDate ?? "",
    passengerCount: trip.passengerCount,
    ...(trip.luggageCount !== undefined ? { luggageCount: trip.luggageCount } : {}),
    preferredVehicleType: trip.preferredVehicleType ?? "",
    specialInstructions: trip.specialInstructions ?? "",
    status: b.status,
    resStatus: STATUS_LABELS[b.status],
    locations: trip.locations,
    passengers: trip.passengers,
  };
}

/** The trip's price and GNet's further fields, shown after its affiliate reservation in every read. */
export function tripPriceAndGnetFields(b: Booking) {
  const trip = b.trip;
  const gnet: Record<string, unknown> = {};
  for (const key of GNET_TRIP_FIELDS) if (trip[key] !== undefined) gnet[key] = trip[key];
  return {
    account: trip.account ?? {},
    fees: trip.fees,
    totalAmount: b.totalAmount,
    // The amount a network quote showed converted when this option was booked: a record beside the provider's price.
    ...(b.quoted?.converted !== undefined ? { convertedAmount: b.quoted.converted } : {}),
    // The terms the booking was made under (docs/terms.md#policies), beside its price.
    ...(b.terms !== undefined ? { terms: b.terms } : {}),
    // What its provider owes on a give-back (docs/settlement.md#give-back-recovery), seen by both parties.
    ...(b.giveBackRecovery !== undefined ? { giveBackRecovery: b.giveBackRecovery } : {}),
    // Whether the provider may still add lines (docs/settlement.md#the-final-fare), once the trip has ended.
    ...(b.finalFare !== undefined ? { finalFare: finalFareView(b) } : {}),
    ...gnet,
    ...(b.submitMode !== undefined ? { submitMode: b.submitMode } : {}),
  };
}

/**
 * A booking as the lookup and the webhooks show it: Unix seconds, the exchange's field names, and
 * everything the requester sent — GNet's fields and members no schema names — in the tripPacket, and the
 * chauffeur's last position when the viewer may see it. A requester's member named like one the exchange or the
 * provider writes (`chauffeur`, `providerResNo`…) is shown under `requesterExtra`, never in that place.
 */
export function bookingView(b: Booking, location?: PositionView) {
  const trip = b.trip;
  return {
    transactionId: b.transactionId,
    fromConextId: b.requesterId,
    toConextId: b.providerId,
    timestamp: b.updatedAt,
    userid: b.userid,
    sourcePlatform: b.sourcePlatform,
    targetPlatform: b.targetPlatform,
    sourceResNo: b.requesterResNo,
    targetResNo: b.providerResNo,
    lastStatus: b.status,
    submitDate: b.submitDate,
    pickupDate: b.pickupDate,
    ...(b.warnings?.length ? { warnings: b.warnings } : {}),
    ...(b.terms !== undefined ? { terms: b.terms } : {}),
    // The offer (docs/terms.md#the-acceptance-deadline-acceptby, docs/terms.md#the-cascade-fallback): the current
    // provider, until when it may accept, every provider offered to so far.
    ...(b.acceptBy !== undefined ? { providerId: b.providerId, acceptBy: isoAt(b.acceptBy), offers: offersView(b) } : {}),
    ...(b.fallback ? { fallback: b.fallback } : {}),
    ...(b.reason !== undefined ? { reason: b.reason } : {}),
    tripPacket: {
      // Members no schema names first; reserved names only under requesterExtra, even where the exchange's is absent.
      ...shownExtras(trip.extra, RESERVED_TRIP_NAMES),
      ...tripFields(b),
      affiliateReservation: {
        ...affiliateParties(b),
        action: b.action,
        // A final delivery failure shows here until retried, with its reason in the notes.
        status: b.deliveryFailure !== undefined ? "FAILED" : b.status,
        notes: b.deliveryFailure !== undefined ? [b.notes, b.deliveryFailure].filter(Boolean).join("\n") : b.notes,
        ...(b.providerNote !== undefined ? { providerNote: b.providerNote } : {}),
      },
      transactionErrors: b.transactionErrors,
      changeLogs: b.changeLogs,
      ...tripPriceAndGnetFields(b),
      ...(b.vehicle !== undefined ? { vehicle: b.vehicle } : {}),
      ...(b.chauffeur !== undefined ? { chauffeur: b.chauffeur } : {}),
      ...(location !== undefined ? { location } : {}),
      ...(b.providerUpdate !== undefined ? { providerUpdate: b.providerUpdate } : {}),
    },
  };
}

/** One line of the reservations list. */
export function bookingSummaryView(s: BookingSummary) {
  return {
    transactionId: s.transactionId,
    fromConextId: s.requesterId,
    toConextId: s.providerId,
    sourceResNo: s.requesterResNo,
    targetResNo: s.providerResNo,
    lastStatus: s.status,
    submitDate: s.submitDate,
    pickupDate: s.pickupDate,
    reservationType: s.reservationType,
  };
}
