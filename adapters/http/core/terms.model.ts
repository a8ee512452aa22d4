import { t } from "elysia";

// Terms, the cancel fee and the provider record (docs/terms.md#policies, docs/terms.md#the-cancellation-fee,
// docs/terms.md#provider-record): shapes shared by the quote answers,
// the booking reads, the webhooks and their own routes.

export const TermsOut = t.Object(
  {
    freeCancellationUntil: t.Union([t.String(), t.Null()], {
      description: "ISO 8601 UTC: until when cancelling costs nothing (null when no tier is free)",
      examples: ["2027-01-15T13:00:00Z"],
    }),
    cancellation: t.Array(
      t.Object({
        until: t.String({ description: "ISO 8601 UTC: cancelling until this instant costs `percent` of the fare" }),
        percent: t.Integer({ minimum: 0, maximum: 100 }),
      }),
      {
        description: "The provider's tiers as instants, earliest first; after the last one, its percent still applies",
        examples: [[{ until: "2027-01-15T13:00:00Z", percent: 0 }, { until: "2027-01-15T14:00:00Z", percent: 100 }]],
      },
    ),
    freeWaitingMinutes: t.Integer({
      description:
        "Minutes the chauffeur waits free: the provider's airport figure for an airport pickup (locationType airport or an " +
        "IATA code), else its other one",
      examples: [60],
    }),
    waitingRate: t.Optional(
      t.Object(
        {
          amount: t.String({ description: "A decimal amount in the fare's currency", examples: ["30.00"] }),
          perMinutes: t.Integer({ minimum: 1, maximum: 240, examples: [15] }),
        },
        {
          description:
            "What waiting beyond the free minutes costs: one WAITING line of `amount` per started period of `perMinutes` " +
            "(absent: waiting is free; docs/flights.md#waiting-and-no-show)",
        },
      ),
    ),
    assignBy: t.Optional(
      t.String({
        description:
          "ISO 8601 UTC: a chauffeur is assigned by this instant — the pickup − the provider's assignBeforeMinutes; an accepted " +
          "booking still without one then warns both parties, booking.unassigned_warning (docs/terms.md#the-assignment-deadline). " +
          "Moves with the pickup; absent on bookings made before it existed",
        examples: ["2027-01-15T14:00:00Z"],
      }),
    ),
  },
  {
    description:
      "The provider's terms (docs/terms.md#policies), fixed when the option is quoted or the booking made: a later change of the " +
      "provider's policies never alters a booking's terms",
  },
);

export const CancelFeeData = t.Object({
  fee: t.String({
    description: "What cancelling now costs, in the booking's currency and its minor unit ('0.00' inside the free window)",
    examples: ["50.00"],
  }),
  currency: t.Union([t.String(), t.Null()], { description: "ISO 4217: the booking's currency (null when its fee lines name none)", examples: ["USD"] }),
  percent: t.Integer({ minimum: 0, maximum: 100, description: "The percent of the fare the tier in force now charges", examples: [50] }),
  freeUntil: t.Union([t.String(), t.Null()], {
    description: "ISO 8601 UTC: the end of the free window (terms.freeCancellationUntil)",
    examples: ["2027-01-15T13:00:00Z"],
  }),
  reason: t.Union(
    [
      t.Literal("NOT_ACCEPTED"),
      t.Literal("FREE_WINDOW"),
      t.Literal("LATE_CANCELLATION"),
      t.Literal("CANCELLED"),
      t.Literal("QUOTE"),
      t.Literal("NO_TERMS"),
      t.Literal("NO_PRICE"),
      t.Literal("NOT_CANCELLABLE"),
    ],
    {
      description:
        "Why the fee is what it is: NOT_ACCEPTED (free: the provider has not accepted the booking yet — BOOKING_REQUEST, " +
        "PENDING or FAILED), FREE_WINDOW (free: inside a 0 % tier), LATE_CANCELLATION (a tier charges `percent` of " +
        "`fare`), CANCELLED (the booking is cancelled: the fee it was charged), QUOTE (a quote costs nothing), NO_TERMS " +
        "(made before terms existed: free), NO_PRICE (no price yet: free), NOT_CANCELLABLE (the requester can no " +
        "longer cancel: the passenger is on board or the booking ended)",
      examples: ["LATE_CANCELLATION"],
    },
  ),
  fare: t.Union([t.String(), t.Null()], {
    description:
      "The fare the percent applies to: the booking's quoted lines, never lines the provider added later (tolls, " +
      "parking, waiting); null without a price (docs/terms.md#the-cancellation-fee)",
    examples: ["100.00"],
  }),
});

const pct = (what: string) =>
  t.Union([t.Number(), t.Null()], { description: `${what} (0–100, one decimal); null under 10 answered offers`, examples: [96.5] });

export const ProviderRecordData = t.Object(
  {
    offers: t.Integer({
      description:
        "Offers made to the provider on the bookings sent in the last 90 days (docs/terms.md#provider-record): a booking the " +
        "cascade moved on counts for every provider it was offered to; quotes, the provider's bookings with itself and " +
        "offers the requester cancelled before an answer are not counted",
      examples: [48],
    }),
    requesters: t.Integer({ description: "How many distinct requester companies the counted offers came from", examples: [6] }),
    awaiting: t.Integer({ description: "Counted offers still awaiting the provider's answer: not yet in the figures", examples: [0] }),
    acceptedPct: pct("Of the answered offers (accepted, declined, lapsed or undeliverable), the share the provider accepted"),
    medianAcceptSeconds: t.Union([t.Integer(), t.Null()], {
      description: "Median seconds from each offer to the provider's acceptance; null under 10 answered offers or when none was accepted",
      examples: [240],
    }),
    providerCancelPct: pct("Of the answered offers, the share the provider declined (REJECT) or cancelled after accepting"),
    onTimePct: pct(
      "Of the accepted offers whose chauffeur is known to have reached the pickup, the share that did at or before the " +
        "pickup time: by its arrival from positions (arrivedAt) where they tell it, else by ON_LOCATION (null also when " +
        "none is known; docs/terms.md#provider-record)",
    ),
    bookings: t.Integer({
      description: "The same number as `offers` (a booking is offered to a provider once), by its earlier name",
      examples: [48],
      deprecated: true,
    }),
  },
  { description: "The provider's record over the last 90 days, offer by offer (docs/terms.md#provider-record)" },
);
