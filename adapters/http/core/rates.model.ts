import { t } from "elysia";
import example from "../examples/rate-card.json";

const Amount = t.String({
  description:
    "A decimal amount in the card's currency, at most 1,000,000 (its minor unit: USD 2 decimals, JPY 0); a JSON number is also taken",
});
/** A surcharge's or extra's name (docs/rates.md#setting-the-card): every company quoted sees it on its breakdown. */
const LineName = t.String({
  description:
    "Shown on each breakdown line: 1–200 characters, no line break or control character (U+2028, BEL, ESC…), nothing " +
    "that looks blank, no hidden or text-direction character (U+202E)",
});
const VehTypes = t.Optional(t.Array(t.String(), { description: "Vehicle types it applies to; absent: every type", examples: [["SEDAN"]] }));
const Zone = t.Union(
  [
    t.Object({ airport: t.String({ description: "IATA code: the airport's position, 5 km (an airport pickup naming it always counts)" }) }),
    t.Object({ lat: t.Number(), lon: t.Number(), radiusKm: t.Number({ description: "0.1–500" }) }),
    t.Object({ polygon: t.Array(t.Array(t.Number()), { description: "A closed ring of [lon, lat] points (last = first), at most 500" }) }),
  ],
  { description: "A zone: an airport, a circle or a polygon" },
);

/** A rate card as the service shows it (docs/rates.md#setting-the-card). */
export const RateCardSchema = t.Object(
  {
    currency: t.String({ description: "ISO 4217; default when absent in a PUT: the currency most of your fleet uses", examples: ["USD"] }),
    minimumFare: t.Optional(Amount),
    routes: t.Array(t.Object({ id: t.String(), from: Zone, to: Zone, vehTypes: VehTypes, price: Amount, bothWays: t.Boolean() }), {
      description:
        "Flat prices between zones (at most 2,000); the first whose from holds the pickup and to the drop-off (or the reverse " +
        "when bothWays), and one of the two every stop, wins. An hourly trip takes its hourly rate first",
    }),
    distance: t.Array(
      t.Object({
        id: t.String(),
        vehTypes: VehTypes,
        base: Amount,
        includedKm: t.Number(),
        perKm: Amount,
        upToKm: t.Optional(
          t.Number({ description: "Its band: trips of at most this many road km (0.1–5,000); absent: any length" }),
        ),
      }),
      {
        description:
          "base + perKm × max(0, road km − includedKm); road km = great circle × 1.3, leg by leg through the stops. For a " +
          "vehicle type the first rule (card order) whose band holds the trip applies; a rule an earlier one always " +
          "comes before (same types, no upToKm or a longer one) is refused, naming it",
      },
    ),
    hourly: t.Array(t.Object({ id: t.String(), vehTypes: VehTypes, perHour: Amount, minimumHours: t.Number() }), {
      description:
        "For hourly trips (runType HOURLY or totalTripDuration), before any route: perHour × max(hours, minimumHours); a " +
        "type's first rule applies (a later one for the same types is refused)",
    }),
    surcharges: t.Array(
      t.Object({
        id: t.String(),
        kind: t.Union([t.Literal("airportPickup"), t.Literal("night"), t.Literal("date")]),
        name: t.Optional(LineName),
        airports: t.Optional(t.Array(t.String())),
        from: t.Optional(t.String({ description: "night: local HH:MM" })),
        to: t.Optional(t.String({ description: "night: local HH:MM (before from: the window crosses midnight)" })),
        dates: t.Optional(t.Array(t.String({ description: "MM-DD, the pickup's local date" }))),
        amount: t.Optional(Amount),
        percent: t.Optional(t.Number({ description: "Percent of the base price" })),
      }),
      { description: "Applied in the pickup's own time zone; exactly one of amount or percent" },
    ),
    extras: t.Array(t.Object({ code: t.String(), name: LineName, price: Amount, max: t.Optional(t.Integer()) }), {
      description: "What a trip may ask with extras: [{code, quantity}]; price is per unit",
    }),
    updatedAt: t.Optional(t.String({ description: "When the card was last replaced (UTC)" })),
  },
  { examples: [example] },
);

export const RateCardAnswer = t.Object({ success: t.Literal(true), data: RateCardSchema });

export const RateCardBody = t.Unknown({
  description:
    "The whole card (replaces the current one). Every field is checked by the service; a bad card is 400 VALIDATION_FAILED " +
    "naming each failing field (`routes[3].to.radiusKm`; a member a part does not have, `routes[0].colour`; a rule that can " +
    "never apply, `distance[1]`), and nothing is saved.",
  examples: [example],
});

/** One line of a quote option's price (docs/rates.md#how-a-vehicle-is-priced): the lines of an option sum to its fee. */
export const BreakdownLine = t.Object({
  kind: t.Union([t.Literal("BASE"), t.Literal("SURCHARGE"), t.Literal("EXTRA"), t.Literal("MINIMUM")]),
  id: t.Optional(t.String({ description: "The card's rule (route, rate, surcharge id; vehicle-rate: the vehicle's own rates; minimumFare)" })),
  code: t.Optional(t.String({ description: "The extra's code (EXTRA lines)" })),
  name: t.String(),
  amount: t.String({ description: "In the option's currency and minor unit" }),
});
export const Breakdown = t.Array(BreakdownLine, { description: "How the fee is made up; the amounts sum exactly to `fee`" });

/** `extras: [{code, quantity}]` of a trip (docs/rates.md#how-a-vehicle-is-priced). */
export const TripExtras = t.Optional(
  t.Array(
    t.Object({
      code: t.String({ maxLength: 32, examples: ["CHILD_SEAT"] }),
      quantity: t.Optional(t.Integer({ minimum: 1, maximum: 100, description: "Default 1" })),
    }),
    { maxItems: 20, description: "Extras the trip asks (priced from each provider's rate card; a provider without one is left out: EXTRA_NOT_OFFERED)" },
  ),
);
