import { t } from "elysia";
import gnetReservationExample from "../examples/gnet-reservation.json";
import { BookingData } from "../core/booking.model";
import { bookingOfferMembers } from "../core/offers.model";

/** The booking view's tripPacket members, reused where GNet's reservation shows the same thing. */
const packet = BookingData.properties.tripPacket.properties;
const o = () => t.Optional(t.String());

/**
 * What getReservationByTransactionId and getReservationByReservationId answer: GNet's reservation object at the
 * top level (as GNet's blueprint shows it) beside `success` and `data`, today's booking view.
 */
export const GnetReservationResponse = t.Object(
  {
    success: t.Literal(true),
    transactionId: t.String({ format: "uuid" }),
    reservationType: packet.reservationType,
    runType: packet.runType,
    reservationDate: packet.reservationDate,
    passengerCount: packet.passengerCount,
    luggageCount: packet.luggageCount,
    preferredVehicleType: packet.preferredVehicleType,
    specialInstructions: packet.specialInstructions,
    status: t.String({
      description: "The booking's lifecycle status (GET /api/trip-states); FAILED only once delivery to the provider failed for " + "good",
      examples: ["CONFIRMED"],
    }),
    resStatus: packet.resStatus,
    locations: packet.locations,
    passengers: packet.passengers,
    account: packet.account,
    fees: packet.fees,
    totalAmount: packet.totalAmount,
    convertedAmount: packet.convertedAmount,
    terms: packet.terms,
    giveBackRecovery: packet.giveBackRecovery,
    finalFare: packet.finalFare,
    notes: packet.notes,
    namesignInstructions: packet.namesignInstructions,
    eventName: packet.eventName,
    sourceVendor: packet.sourceVendor,
    origination: packet.origination,
    totalTripDuration: packet.totalTripDuration,
    submitMode: packet.submitMode,
    affiliateReservation: t.Object(
      {
        updateTime: t.String({ description: "ISO 8601 UTC: the booking's last change" }),
        notes: t.String({ description: "The requester's notes; while delivery is failing, the reason follows on its own line" }),
        requesterId: t.String(),
        requesterResNo: t.String(),
        providerId: t.String(),
        providerResNo: t.String({ description: "The provider's reservation number; empty until known" }),
        providerResCode: t.String({ description: "GNet's confirmation code: the provider's reservation number; empty until known" }),
        action: t.String({ description: "The requester's last action: NEW, UPDATE or CANCEL" }),
        submissionTarget: t.String({ description: "The provider's platform", examples: ["TRIPSWITCH"] }),
        status: t.String({
          description:
            "FAILED from the first failed delivery attempt to the provider's endpoint until a later attempt " +
            "succeeds (automatic retries go on; retryTransaction retries at once); otherwise the booking's status",
        }),
      },
      { additionalProperties: true, description: "With any member the requester sent that no schema names (never one of these names)" },
    ),
    vehicle: t.Union(
      [t.Object({ vehicleId: o(), vehicleType: o(), make: o(), model: o(), plateNo: o(), vColor: o() }, { additionalProperties: true }), t.Null()],
      { description: "The provider's vehicle under GNet's names (vehicleType, plateNo, vColor) besides the ones it sent; null " + "until assigned" },
    ),
    chauffeur: t.Union(
      [t.Object({ chauffeurId: o(), firstName: o(), lastName: o(), email: o(), phoneNumber: o(), picURL: o() }, { additionalProperties: true }), t.Null()],
      { description: "null until assigned" },
    ),
    location: t.Union([t.Object({ lat: t.Number(), lon: t.Number(), timestamp: t.String() }), t.Null()], {
      description: "The chauffeur's last position as you may see it (a requester: only while the trip is under way); null " + "otherwise",
    }),
    providerNote: t.String({ description: "The provider's note; empty when none" }),
    transactionErrors: packet.transactionErrors,
    changeLogs: packet.changeLogs,
    // The offer (docs/terms.md#the-acceptance-deadline-acceptby, docs/terms.md#the-cascade-fallback), as in `data`: additive members of GNet's object.
    acceptBy: bookingOfferMembers.acceptBy,
    offers: bookingOfferMembers.offers,
    reason: bookingOfferMembers.reason,
    data: BookingData,
  },
  {
    additionalProperties: true,
    description:
      "GNet's reservation object at the top level: the trip as stored (members the requester sent that no schema " +
      "names included, unless the name is one of these or the provider's), the lifecycle `status`, `totalAmount` " +
      "and `affiliateReservation`. `success` and `data` (the booking as GET /api/reservation/{transactionId} shows " +
      "it) are kept beside it for existing TripSwitch clients.",
    examples: [gnetReservationExample],
  },
);
