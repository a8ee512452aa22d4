import { t } from "elysia";

// The flight a pickup follows (docs/flights.md#flights): the status a party sends, the answer, the flight in reads.

const when = (description: string, example: string) => t.Optional(t.String({ maxLength: 64, description, examples: [example] }));

export const FlightStatusBody = t.Object(
  {
    estimatedArrival: when(
      "The flight's estimated landing: a wall-clock time at the pickup airport (like the pickup's own time) or an instant with Z or an offset",
      "2026-12-11T21:35:00",
    ),
    actualArrival: when("When the flight landed (same forms); send one of estimatedArrival and actualArrival", "2026-12-11T21:31:00"),
    scheduledArrival: when(
      "The scheduled landing, used only when the booking's flightInfo has none (then the pickup's offset is counted from it)",
      "2026-12-11T20:40:00",
    ),
  },
  { additionalProperties: false },
);

const Instant = (description: string) => t.String({ description, examples: ["2026-12-12T02:10:00Z"] });

export const MoveOut = t.Object(
  {
    from: Instant("The pickup before the move (UTC instant)"),
    to: Instant("The pickup after the move (UTC instant)"),
    cause: t.String({ description: "FLIGHT_DELAY (later) or FLIGHT_EARLY (earlier)", examples: ["FLIGHT_DELAY"] }),
  },
  { description: "A move of the pickup by its flight" },
);

export const FlightOut = t.Object(
  {
    airlineCode: t.String({ examples: ["B6"] }),
    flightNumber: t.String({ examples: ["1544"] }),
    state: t.String({ description: "SCHEDULED, ESTIMATED (a status gave an estimate) or LANDED", examples: ["ESTIMATED"] }),
    scheduledLanding: t.Union([t.String(), t.Null()], { description: "The scheduled landing (UTC instant); null while unknown" }),
    pickupOffsetMinutes: t.Union([t.Integer(), t.Null()], {
      description: "Pickup − scheduled landing, in minutes: the pickup follows the landing by this much; null while the landing is unknown",
      examples: [30],
    }),
    estimatedLanding: t.Optional(Instant("The latest estimated landing")),
    landedAt: t.Optional(Instant("When the flight landed")),
    originalPickup: Instant("The pickup as booked, before any flight moved it"),
    lastMove: t.Optional(
      t.Object({ ...MoveOut.properties, at: Instant("When the move was made") }, { description: "The last move of the pickup by its flight" }),
    ),
  },
  {
    description:
      "The flight the pickup meets (docs/flights.md#flights), owned by the exchange: present when locations.pickup.flightInfo names a flight",
  },
);

export const FlightStatusAnswer = t.Object({
  success: t.Literal(true),
  data: t.Object({
    transactionId: t.String({ format: "uuid" }),
    moved: t.Boolean({ description: "Whether the status moved the pickup (false: it lands as the pickup expects)" }),
    time: t.String({ description: "locations.pickup.time now, in its own form (the local wall-clock time)", examples: ["2026-12-11T21:35:00"] }),
    pickupDate: t.Number({ description: "The pickup now, Unix seconds" }),
    move: t.Optional(MoveOut),
    warnings: t.Array(
      t.Object({ code: t.Literal("PICKUP_MOVED_SHORT_NOTICE"), field: t.Optional(t.String()), message: t.String() }),
      { description: "PICKUP_MOVED_SHORT_NOTICE while the pickup a flight moved is less than 15 minutes from the move" },
    ),
    flight: FlightOut,
  }),
});
