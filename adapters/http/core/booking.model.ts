import { t } from "elysia";
import { bookingOfferMembers } from "./offers.model";
import { open } from "../gnet-fields";
import { FeeOut, TripWarningOut } from "../platform/send-trip.model";
import { TermsOut } from "./terms.model";

// A booking as the core API shows it (GET /api/reservation, webhooks, GNet reads).

const REQUESTER_EXTRA_EXAMPLE =
  "e.g. chauffeur, vehicle, location, providerUpdate, providerNote, providerResCode, userid, fromConextId, and the " +
  "exchange's own acceptBy, offers, reason, terms, finalFare, evidence, eta, arrivedAt (docs/security.md#owned-members)";

const o = () => t.Optional(t.String());
const anyOut = () => t.Optional(t.Union([t.String(), t.Number(), t.Boolean()]));

const locationOut = {
  locationType: o(),
  landmark: o(),
  lat: t.Optional(t.String({ description: "Always a string, whatever JSON type was sent" })),
  lon: t.Optional(t.String({ description: "Always a string, whatever JSON type was sent" })),
  address: o(),
  address1: o(),
  address2: o(),
  city: o(),
  state: o(),
  zipCode: o(),
  country: o(),
  time: o(),
  flightInfo: t.Optional(t.Object({ airlineCode: o(), flightNumber: o() }, open())),
  specialInstructions: o(),
  meetAndGreet: anyOut(),
  FBO: anyOut(),
  pointOnLocation: o(),
};
const LocationOut = t.Object(locationOut, open("As sent (lat/lon as strings), with any member no schema names"));
const PhoneOut = t.Object({ number: o(), type: o() }, open());

/** Give-back recovery tiers (docs/settlement.md#give-back-recovery), as the settings show them. */
export const RecoveryTiersOut = t.Array(
  t.Object({
    beforeMinutes: t.Integer({ minimum: 0, maximum: 43_200, examples: [120] }),
    percent: t.Integer({ minimum: 0, maximum: 100, examples: [50] }),
  }),
  {
    description:
      "What a provider owes you when it gives one of your bookings back after accepting it (a COST_RECOVERY): a give-back " +
      "until `beforeMinutes` before the pickup owes `percent` of the quoted fare. Default: 0 % until 24 h before, 50 % until " +
      "2 h before, then 100 %. Each booking keeps the tiers it was made under, and its provider sees them with the offer.",
  },
);

/** The final fare (docs/settlement.md#the-final-fare): from the trip's end on. */
const FinalFareOut = t.Object(
  {
    state: t.Union([t.Literal("OPEN"), t.Literal("FINAL")], {
      description: "OPEN: the provider may still send fee lines (tolls, parking, waiting); FINAL: they no longer change (409 FARE_FINAL)",
    }),
    until: t.String({ description: "ISO 8601 UTC: 24 h after COMPLETE (or CLOSE), when the fare becomes FINAL", examples: ["2027-12-04T18:00:00Z"] }),
  },
  { description: "The fare's state once the trip has ended (COMPLETE or CLOSE); absent before. docs/settlement.md#the-final-fare" },
);

export const BookingData = t.Object({
  transactionId: t.String({ format: "uuid" }),
  fromConextId: t.String({ description: "The requester's netid" }),
  toConextId: t.String({ description: "The provider's netid" }),
  timestamp: t.Number({ description: "Last change, Unix seconds" }),
  userid: t.String({ description: "uid of the user who submitted the trip" }),
  sourcePlatform: t.String({ examples: ["API"] }),
  targetPlatform: t.String({ examples: ["TRIPSWITCH"] }),
  sourceResNo: t.Union([t.String(), t.Null()], { description: "requesterResNo" }),
  targetResNo: t.Union([t.String(), t.Null()], { description: "providerResNo; null until known" }),
  lastStatus: t.String({ examples: ["BOOKING_REQUEST"] }),
  submitDate: t.Number({ description: "Unix seconds" }),
  pickupDate: t.Number({
    description:
      "Unix seconds; a pickup time without offset is read in the pickup place's time zone: a time the autumn clock " +
      "change repeats is the earlier instant, one the spring change skips moves forward by the gap (PICKUP_TIME_ADJUSTED)",
  }),
  pickupZone: t.Optional(
    t.String({
      description:
        "GET /api/reservation only: the IANA time zone of the pickup's place (airport, coordinates or city; UTC when " +
        "unplaced), in which the pickup time is read",
      examples: ["America/New_York"],
    }),
  ),
  warnings: t.Optional(
    t.Array(TripWarningOut, { description: "What the request that made the booking or quote was warned about (as sendTrip answered); absent when nothing" }),
  ),
  terms: t.Optional(TermsOut),
  ...bookingOfferMembers,
  tripPacket: t.Object(
    {
      reservationType: t.String({ examples: ["REGULAR"], description: "REGULAR, ONDEMAND or QUOTE" }),
      runType: t.String(),
      reservationDate: t.String({ description: "As sent: a date-time or a bare offset" }),
      passengerCount: t.String(),
      luggageCount: t.Optional(t.String({ description: "Only when specified" })),
      preferredVehicleType: t.String(),
      specialInstructions: t.String(),
      status: t.String(),
      resStatus: t.String({ description: "Human label, e.g. Pending" }),
      locations: t.Object(
        { pickup: LocationOut, dropOff: t.Optional(LocationOut), stops: t.Optional(t.Array(t.Object({ ...locationOut, stopNumber: anyOut() }, open()))) },
        open(),
      ),
      passengers: t.Array(
        t.Object({ firstName: o(), lastName: o(), email: o(), phoneNumber: o(), accountNumber: o(), phones: t.Optional(t.Array(PhoneOut)) }, open()),
      ),
      affiliateReservation: t.Object(
        {
          requesterId: t.String(),
          requesterResNo: t.String(),
          providerId: t.String(),
          providerResNo: t.Optional(t.String()),
          action: t.String(),
          status: t.String(),
          notes: t.String(),
          providerNote: t.Optional(t.String()),
          requesterExtra: t.Optional(
            t.Object(
              {},
              open(
                "affiliateReservation members the requester sent under a name the exchange or the provider writes " +
                  "(e.g. providerResNo, providerResCode): kept verbatim and shown only here",
              ),
            ),
          ),
        },
        open("With any member the requester sent that no schema names (names the exchange or the provider writes only under `requesterExtra`)"),
      ),
      transactionErrors: t.Array(t.Object({ timestamp: t.String(), errCode: t.String(), errDesc: t.String() })),
      changeLogs: t.Array(t.Object({ timestamp: t.String(), changeSource: t.String(), changeDesc: t.String() })),
      account: t.Object({ accountNumber: o(), accountName: o(), callerName: o(), callerNumber: o(), callerEmail: o() }, open()),
      fees: t.Array(FeeOut, { description: "On a QUOTE: the vehicle options" }),
      totalAmount: t.Union([t.String(), t.Null()]),
      convertedAmount: t.Optional(
        t.Object(
          { fee: t.String(), currency: t.String(), rate: t.Number(), rateDate: t.String() },
          {
            description:
              "Booked from a network quote option shown converted (docs/fx.md#what-a-network-quote-shows): the converted amount shown then, kept as a " +
              "record; the contract is the provider's fee (`fees`, `totalAmount`)",
          },
        ),
      ),
      terms: t.Optional(TermsOut),
      giveBackRecovery: t.Optional(RecoveryTiersOut),
      finalFare: t.Optional(FinalFareOut),
      notes: t.Optional(t.Array(t.Object({ message: t.String(), context: t.String({ description: "AFFILIATE or DRIVER" }) }, open()))),
      namesignInstructions: o(),
      eventName: o(),
      sourceVendor: o(),
      origination: o(),
      totalTripDuration: t.Optional(t.Union([t.String(), t.Number()], { description: "Minutes, as sent" })),
      submitMode: t.Optional(t.String({ description: "How the NEW asked to be answered (ASYNC or WAIT), when it said" })),
      vehicle: t.Optional(
        t.Object(
          { vehicleId: o(), vehicleType: o(), make: o(), model: o(), plateNo: o(), vColor: o(), vehType: o(), color: o(), licensePlate: o(), description: o() },
          open("As the provider sent it"),
        ),
      ),
      chauffeur: t.Optional(
        t.Object({ chauffeurId: o(), firstName: o(), lastName: o(), email: o(), phoneNumber: o(), picURL: o(), phones: t.Optional(t.Array(PhoneOut)) }, open()),
      ),
      location: t.Optional(
        t.Object(
          { lat: t.Number(), lon: t.Number(), timestamp: t.String({ description: "ISO 8601: when the fix was taken (or received)" }) },
          { description: "The chauffeur's last position (pushed, or sent with a status update). The requester sees it only while the trip is under way." },
        ),
      ),
      providerUpdate: t.Optional(
        t.Object(
          { LocalTimestamp: o(), UTCtimestamp: o(), griddID: o() },
          open("GNet metadata of the provider's last update, and any member of it no schema names"),
        ),
      ),
      requesterExtra: t.Optional(
        t.Object(
          {},
          open(
            `Members the requester sent under a name the exchange or the provider writes ` +
            `(${REQUESTER_EXTRA_EXAMPLE}): kept verbatim and shown only here, so they never pass for the ` +
            `exchange's or the provider's own fields`,
          ),
        ),
      ),
    },
    open(
      "The trip as stored. Top-level members the requester sent that no schema names appear here too, except names " +
        "the exchange or the provider writes: those are under `requesterExtra`.",
    ),
  ),
});

export const BookingResponse = t.Object({ success: t.Literal(true), data: BookingData });
