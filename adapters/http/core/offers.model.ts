import { t } from "elysia";
import { TermsOut } from "./terms.model";

/**
 * The acceptance deadline and the cascade in request and booking schemas
 * (docs/terms.md#the-acceptance-deadline-acceptby, docs/terms.md#the-cascade-fallback), shared by sendTrip,
 * POST /api/quotes/{quoteId}/book, the booking reads, webhooks and the provider's delivery.
 */

export const ACCEPT_WITHIN_MINUTES = t.Optional(
  // Checked by the use case (with every other failing field named at once), so the schema takes any number or text.
  t.Union([t.Number(), t.String({ maxLength: 8 })], {
    description:
      "A NEW booking: ask the provider to accept (CONFIRMED) sooner than the default window (pickup within 24 h: 30 min " +
      "after the booking; 48 h: 4 h; 72 h: 12 h; later: 24 h), which never ends later than 30 min before the pickup " +
      "(5 min after the booking when that is sooner; docs/terms.md#deadlines-within-the-trip). 1–1,440; otherwise 400 " +
      "naming acceptWithinMinutes.",
    examples: [15],
  }),
);

export const FALLBACK = t.Optional(
  t.Object(
    {
      maxFee: t.Union([t.String({ maxLength: 16 }), t.Number()], {
        description:
          "The highest fee of an option the booking may move to: in the converted currency when the option booked was shown " +
          "`converted` (the quote asked for a currency, or your displayCurrency), else in the booked option's currency; " +
          "with at most that currency's decimals (JPY none: `100.5` is 400 naming fallback.maxFee, " +
          "docs/terms.md#the-cascade-fallback)",
        examples: ["120.00"],
      }),
      sameClassOrBetter: t.Optional(
        // Checked by the use case (400 naming fallback.sameClassOrBetter), so the schema takes text too.
        t.Union([t.Boolean(), t.String({ maxLength: 8 })], {
          description:
            "true: never move the booking to a vehicle of a smaller class than the one booked (SEDAN < EXECUTIVE < SUV < " +
            "VAN < LIMO < SPRINTER < MINIBUS < BUS; any other type only to the same type). See docs/terms.md#each-provider-its-own-terms.",
          examples: [true],
        }),
      ),
    },
    {
      description:
        "The cascade (a booking made from a network quote only; otherwise 400 naming fallback): when the provider " +
        "REJECTs, lets acceptBy pass, gives the booking back after accepting it (its own CANCEL) or cannot be delivered " +
        "to (FAILED), the same transactionId and requesterResNo are offered to the next option of the quote — cheapest " +
        "first, another provider, available, giving the notice it asks, fee ≤ maxFee — at most 5 times, and never " +
        "later than 30 min before the pickup; none left: REJECT with reason NO_PROVIDER_ACCEPTED. Yours alone: never " +
        "shown to a provider. See docs/terms.md#the-cascade-fallback.",
    },
  ),
);

const Offer = t.Object(
  {
    provider: t.String({ description: "The provider's netid" }),
    fee: t.Union([t.String(), t.Null()], { description: "The option's fee offered to it" }),
    currency: t.Union([t.String(), t.Null()]),
    status: t.String({ description: "The booking's status with this provider (CANCEL: its offer lapsed or it gave the booking back; REJECT: it rejected)" }),
    reason: t.Optional(
      t.String({
        description:
          "Why the offer ended: PROVIDER_REJECTED (a REJECT, or its CANCEL before accepting), ACCEPT_TIMEOUT, " +
          "PROVIDER_GAVE_BACK (its CANCEL after accepting) or DELIVERY_FAILED; absent on the current offer",
        examples: ["ACCEPT_TIMEOUT"],
      }),
    ),
    at: t.String({ format: "date-time", description: "When it was offered (UTC)" }),
    terms: t.Optional(
      t.Composite([TermsOut], { description: "The terms this provider offered the trip under (docs/terms.md#each-provider-its-own-terms)" }),
    ),
  },
  { additionalProperties: false },
);

/** The members a booking read and a webhook's `data` add (absent on quotes and bookings made before docs/terms.md). */
export const bookingOfferMembers = {
  providerId: t.Optional(t.String({ description: "The current provider (the same as toConextId); the cascade changes it" })),
  acceptBy: t.Optional(
    t.String({
      format: "date-time",
      description:
        "Until when the current provider may accept (CONFIRMED or a later status); past it the offer lapses. " +
        "A pickup moved earlier before acceptance pulls it in (docs/terms.md#a-moved-pickup-pulls-acceptby-in)",
    }),
  ),
  offers: t.Optional(
    t.Array(Offer, {
      description:
        "The requester: every provider the booking was offered to, the current one last. A provider: its own offer only " +
        "(docs/terms.md#who-sees-what)",
    }),
  ),
  fallback: t.Optional(
    t.Object(
      { maxFee: t.String(), sameClassOrBetter: t.Optional(t.Boolean()) },
      {
        description:
          "The requester's read only (never a provider's): the cascade's cap the booking was made with — in the converted " +
          "currency when the option booked was shown converted (POST /api/quotes with `currency`, or displayCurrency), " +
          "else in that option's currency — and whether it keeps to the class booked or larger",
      },
    ),
  ),
  reason: t.Optional(
    t.String({
      description:
        "Why the exchange ended the booking as REJECT: ACCEPT_TIMEOUT (the provider let acceptBy pass), NO_PROVIDER_ACCEPTED " +
        "(the cascade found none, or the pickup was 30 min away or less) or RELEASED (the provider released its pending " +
        "requests, docs/availability.md#releasing-a-requesters-pending-requests). A provider whose offer ended reads its offer's " +
        "reason here: PROVIDER_REJECTED, ACCEPT_TIMEOUT, PROVIDER_GAVE_BACK or DELIVERY_FAILED",
      examples: ["ACCEPT_TIMEOUT"],
    }),
  ),
};

/**
 * booking.reassigned: who had the booking, who has it now, why, and what changed; booking.withdrawn: why;
 * booking.pickup_moved: from what to what; booking.unassigned_warning: the deadline that passed without a chauffeur.
 */
export const reassignedMembers = {
  from: t.Optional(
    t.String({
      description:
        "booking.reassigned: the provider that lost the booking; booking.pickup_moved and booking.pickup_move_blocked: the " +
        "pickup before the move (UTC instant)",
    }),
  ),
  to: t.Optional(
    t.String({
      description:
        "booking.reassigned: the provider now offered it; booking.pickup_moved: the pickup after the move; " +
        "booking.pickup_move_blocked: where the flight would have moved it (UTC instants)",
    }),
  ),
  cause: t.Optional(
    t.String({
      description: "booking.pickup_moved and booking.pickup_move_blocked: FLIGHT_DELAY or FLIGHT_EARLY (docs/flights.md#the-pickup-follows-the-flight)",
    }),
  ),
  reason: t.Optional(
    t.String({
      description:
        "booking.reassigned and booking.withdrawn: why the offer ended — PROVIDER_REJECTED, ACCEPT_TIMEOUT, " +
        "PROVIDER_GAVE_BACK or DELIVERY_FAILED",
    }),
  ),
  priceChange: t.Optional(
    t.Object(
      {
        from: t.Union([t.String(), t.Null()], { description: "The total before the move" }),
        to: t.String({ description: "The total now: the new provider's option" }),
        currency: t.String({ description: "The currency of `to` (and of `from` unless fromCurrency says otherwise)" }),
        fromCurrency: t.Optional(t.String({ description: "The currency of `from` when it was another" })),
      },
      { description: "booking.reassigned only: the price before and after the move (docs/terms.md#each-provider-its-own-terms)" },
    ),
  ),
  termsChanged: t.Optional(
    t.Boolean({ description: "booking.reassigned only: whether the new provider's terms differ from those the booking had (`data.terms` are the new ones)" }),
  ),
  reservationId: t.Optional(
    t.String({ description: "booking.unassigned_warning: the booking's transactionId (docs/terms.md#the-assignment-deadline)" }),
  ),
  requesterResNo: t.Optional(t.String({ description: "booking.unassigned_warning: the requester's reservation number" })),
  providerResNo: t.Optional(
    t.Union([t.String(), t.Null()], { description: "booking.unassigned_warning: the provider's reservation number (null until it gave one)" }),
  ),
  pickupAt: t.Optional(t.String({ description: "booking.unassigned_warning: the pickup (UTC instant)" })),
  assignBy: t.Optional(t.String({ description: "booking.unassigned_warning: the deadline that passed without a chauffeur (UTC instant)" })),
  minutesLeft: t.Optional(t.Integer({ minimum: 0, description: "booking.unassigned_warning: whole minutes from the warning to the pickup" })),
};
