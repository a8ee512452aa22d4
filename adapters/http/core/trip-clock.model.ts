import { t } from "elysia";

// The trip's clock a booking read and a webhook's `data` carry (docs/flights.md#arrival, docs/flights.md#eta).

export const EtaOut = t.Object(
  {
    toPickupMinutes: t.Integer({ minimum: 0, description: "Minutes from the latest position to the pickup", examples: [12] }),
    at: t.String({ format: "date-time", description: "When that puts the chauffeur at the pickup (UTC): the position's time + the minutes" }),
  },
  {
    description:
      "While the booking is ASSIGNED or EN_ROUTE and has a position: the road from the latest position (the great circle × " +
      "1.3 at the provider's etaSpeedKmh, default 40 km/h) (docs/flights.md#eta)",
  },
);

/** The members a booking read and a webhook's `data` add once the trip's clock knows them. */
export const tripClockMembers = {
  arrivedAt: t.Optional(
    t.String({
      format: "date-time",
      description:
        "When the chauffeur arrived, by its positions: the time taken (locationDateTime) of the first position within 150 m " +
        "of the pickup (1.5 km of an airport's position) sent from ASSIGNED on (docs/flights.md#arrival)",
      examples: ["2027-06-15T13:52:10Z"],
    }),
  ),
  flags: t.Optional(
    t.Array(t.Literal("ON_LOCATION_BEFORE_ARRIVAL"), {
      description: "ON_LOCATION_BEFORE_ARRIVAL: the provider sent ON_LOCATION more than 5 minutes before arrivedAt",
    }),
  ),
  eta: t.Optional(EtaOut),
};
