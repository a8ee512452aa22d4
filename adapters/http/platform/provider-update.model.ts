import { t } from "elysia";
import { TRIP_STATUSES } from "../../../domain/trips/lifecycle";
import { FeeSchema } from "./send-trip.model";
import { MAX_FEES, MAX_PHONES, numberOrText, open, Phone, str } from "../gnet-fields";

// The provider's status update (providerUpdateStatus*): what it may send.

const VehicleSchema = t.Object(
  {
    vehicleId: str(100),
    vehicleType: str(50, "GNet's name for the vehicle type", "SUV"),
    make: str(100),
    model: str(100),
    year: numberOrText(8, "Model year", "2024"),
    vin: str(32),
    plateNo: str(32, "GNet's name for the licence plate", "7ABC123"),
    vColor: str(50, "GNet's name for the colour"),
    passengerCount: numberOrText(10, "Seats for passengers"),
    mileage: numberOrText(16, "Odometer reading"),
    vehType: str(50, "Older name of vehicleType (still accepted)"),
    color: str(50, "Older name of vColor (still accepted)"),
    licensePlate: str(32, "Older name of plateNo (still accepted)"),
    description: str(500),
  },
  open("The assigned vehicle, kept as sent (GNet's names or the older ones)."),
);
const ChauffeurSchema = t.Object(
  {
    chauffeurId: str(100),
    firstName: str(100),
    lastName: str(100),
    email: str(254),
    phoneNumber: str(64),
    picURL: str(2048, "A photo of the chauffeur"),
    phones: t.Optional(t.Array(Phone, { maxItems: MAX_PHONES, error: `at most ${MAX_PHONES} phones` })),
  },
  open(),
);

export const ProviderUpdateBody = t.Object(
  {
    status: t.String({
      maxLength: 32,
      description:
        `The new status: ${TRIP_STATUSES.join(", ")}; legacy ENROUTE, AT_LOCATION, ACCEPTED accepted. A forward ` +
        `move along the main path may skip states (GET /api/trip-states).`,
      examples: ["CONFIRMED"],
    }),
    resNo: str(100, "GNet: your reservation number (= providerResNo); shown as targetResNo", "AC-55102"),
    providerResNo: str(100, "Your reservation number; shown as targetResNo"),
    LocalTimestamp: str(64, "GNet: when the event happened, local time; kept and shown"),
    UTCtimestamp: str(64, "GNet: when the event happened, UTC; kept and shown"),
    griddID: str(100, "GNet: your dispatch system's id; kept and shown"),
    requesterResNo: str(100, "When sent, must be the booking's requesterResNo (400 otherwise)"),
    transactionId: str(64, "When sent, must be the booking's transactionId (400 otherwise)"),
    providerNote: str(4000),
    totalAmount: numberOrText(
      32,
      "Decimal amount (string or number), in the booking's currency's minor unit (the currency its fee lines name; " +
        "a booking without one takes the update's; JPY none, BHD 3, most 2; two decimals when it has none): 5000 on a JPY " +
        'booking is kept as "5000", 12.5 on a BHD one as "12.500". More significant decimals than the currency ' +
        'has are 400 naming the field ("fees[0].fee has 2 decimals; JPY has none"). Must be the sum of the ' +
        "booking's fee lines (400 naming it otherwise; left out with `fees`, it becomes their sum); alone, it prices " +
        "only a booking without priced lines",
      "240.00",
    ),
    fees: t.Optional(
      t.Array(FeeSchema, {
        maxItems: MAX_FEES,
        error: `at most ${MAX_FEES} fee lines`,
        description:
          'The booking\'s fee lines; each `fee` in the booking\'s currency\'s minor unit (the currency its fee ' +
          'lines name; a booking without one takes the update\'s; JPY none, BHD 3, most 2; two decimals when it has ' +
          'none): 5000 on a JPY booking is kept as "5000", 12.5 on a BHD one as "12.500". More significant ' +
          'decimals than the currency has are 400 naming the field ("fees[0].fee has 2 decimals; JPY has none"). ' +
          "The whole list: on a booking made from a quote, its quoted lines first, unchanged (400 naming " +
          "`fees[i].fee` or `fees` otherwise), then the lines you add, of type CHARGE, EXPENSE or EXTRA_SERVICE, each " +
          "with a `fee` in the booking's currency (docs/terms.md#the-price-is-the-sum-of-its-lines)",
      }),
    ),
    vehicle: t.Optional(VehicleSchema),
    chauffeur: t.Optional(ChauffeurSchema),
    lat: numberOrText(32, "The chauffeur's position (with lon), kept as the booking's location while the trip is under way", "42.3656"),
    lon: numberOrText(32, "The chauffeur's position (with lat)", "-71.0096"),
  },
  {
    additionalProperties: true,
    description: "`null` on any optional field means absent; members no schema names are kept and shown in tripPacket.providerUpdate.",
    examples: [
      { status: "CONFIRMED", providerResNo: "AC-55102" },
      {
        status: "ON_LOCATION",
        resNo: "AC-55102",
        LocalTimestamp: "2026-12-11T16:05:00",
        UTCtimestamp: "2026-12-11T21:05:00Z",
        griddID: "GRD-7781",
        chauffeur: { chauffeurId: "CH-12", firstName: "<NAME>", lastName: "<NAME>", phoneNumber: "<PHONE>", picURL: "https://acme-limo.example/ch-12.jpg" },
        vehicle: { vehicleId: "V-9", vehicleType: "SUV", make: "Cadillac", model: "Escalade", year: "2024", plateNo: "7ABC123", vColor: "Black" },
        fees: [
          { type: "BASE", name: "Base rate", fee: "200.00" },
          { type: "GRATUITY", name: "Gratuity", fee: "40.00", percent: "20", reimbursable: "False" },
        ],
        totalAmount: "240.00",
        lat: 42.3656,
        lon: -71.0096,
      },
      {
        status: "COMPLETE",
        fees: [
          { type: "OTHER", code: "acme-sedan-1", fee: "110.00", currency: "USD" },
          { type: "CHARGE", code: "TOLL", name: "Tolls", fee: "6.50", currency: "USD" },
          { type: "EXPENSE", code: "PARKING", name: "Airport parking", fee: "12.00", currency: "USD" },
        ],
        totalAmount: "128.50",
      },
    ],
  },
);
