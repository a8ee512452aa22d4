import { t } from "elysia";
import { ACCEPT_WITHIN_MINUTES, FALLBACK } from "./offers.model";
import { SendTripBody } from "../platform/send-trip.model";
import networkQuoteRequest from "../examples/network-quote-request.json";
import networkQuoteResponse from "../examples/network-quote-response.json";
import networkQuoteBook from "../examples/network-quote-book.json";
import { MAX_NAMED_PROVIDERS } from "../../../domain/quotes/network-quote";

/** Trip fields of sendTrip that a network quote's body takes as they are. */
const {
  affiliateReservation: _a,
  transactionId: _t,
  submitMode: _s,
  status: _st,
  quoteId: _q,
  fees: _f,
  reservationType: _r,
  ...tripFields
} = SendTripBody.properties;

export const NetworkQuoteBody = t.Object(
  {
    ...tripFields,
    providers: t.Optional(
      t.Array(t.String({ maxLength: 64 }), {
        maxItems: MAX_NAMED_PROVIDERS,
        description: `Only these providers (netids, 1–${MAX_NAMED_PROVIDERS}); a netid nobody holds answers like one that serves nothing ` +
          "(no options); an entry that is no netid is 400 naming providers[i]",
        examples: [["ACME-LIMO", "BLUE-SKY-CARS"]],
      }),
    ),
    partnersOnly: t.Optional(t.Boolean({ description: "Only providers you are active partners with" })),
    affiliateReservation: t.Optional(
      t.Object({}, { additionalProperties: true, description: "Not needed; providerId must not be sent (400): a network quote asks every provider" }),
    ),
  },
  {
    additionalProperties: true,
    description:
      "A trip in the sendTrip shape without a provider: passengerCount and locations.pickup.time are required, " +
      "passengers optional (the booking names them). Members no schema names are kept and travel with the booking " +
      "of an option.",
    examples: [networkQuoteRequest],
  },
);

const Option = t.Object({
  quoteOptionId: t.String({ description: "`<provider netid>:<code>`: what POST /api/quotes/{quoteId}/book names" }),
  provider: t.Object({ netid: t.String(), name: t.String() }),
  code: t.String({ description: "The provider's fleet entry (slug): what a sendTrip with quoteId names in fees[0].code" }),
  name: t.String(),
  description: t.String(),
  vehType: t.String(),
  passengerCount: t.String({ description: "Seats of the vehicle" }),
  luggageCount: t.Optional(t.String({ description: "Luggage capacity; absent when unknown" })),
  fee: t.String({ description: "Decimal string in the quote's currency, with its minor unit's digits" }),
  currency: t.String({ description: "ISO 4217: the quote's one currency" }),
  nearestKm: t.Number({ description: "Great-circle km from the vehicle to the pickup (1 decimal)" }),
  images: t.Array(t.String()),
});

const Warning = t.Object(
  {
    code: t.String({
      description:
        "NO_VEHICLE_NEAR_PICKUP (no option), OTHER_CURRENCIES_LEFT_OUT (vehicles priced in other currencies were " +
        "left out; `count`, `currencies`), VEHICLES_BUSY (held vehicles left out; `count`), SHORT_NOTICE (providers left out: " +
        "the pickup is sooner than their minimumNoticeMinutes; `count`)",
      examples: ["OTHER_CURRENCIES_LEFT_OUT"],
    }),
    message: t.String(),
    field: t.Optional(t.String()),
    count: t.Optional(t.Number()),
    currencies: t.Optional(t.Array(t.String())),
  },
  { additionalProperties: true },
);

export const NetworkQuoteData = t.Object({
  quoteId: t.String({ format: "uuid" }),
  validUntil: t.String({ description: "ISO 8601 UTC: 24 h after the quote; booking an option later is 409 QUOTE_EXPIRED" }),
  currency: t.Union([t.String(), t.Null()], {
    description:
      "The one currency of every option: the pickup country's when some provider prices serving vehicles in it, else " +
      "the one most serving vehicles use; null without options",
  }),
  totalAmount: t.Union([t.String(), t.Null()], { description: "The first (cheapest) option's fee; null without options" }),
  options: t.Array(Option, { maxItems: 50, description: "Cheapest first, then nearest; at most 5 per provider and 50 in all" }),
  warnings: t.Array(Warning),
});

export const NetworkQuoteResponse = t.Object({ success: t.Literal(true), data: NetworkQuoteData }, { examples: [networkQuoteResponse] });

export const QuoteIdParams = t.Object({ quoteId: t.String({ maxLength: 64, description: "The network quote's quoteId" }) });

export const BookQuoteBody = t.Object(
  {
    quoteOptionId: t.String({ maxLength: 200, description: "The option to book (from the quote's options)" }),
    requesterResNo: t.String({ maxLength: 100, description: "Your reservation number: booking again with it answers the same booking" }),
    passengers: SendTripBody.properties.passengers,
    providerResNo: t.Optional(t.String({ maxLength: 100 })),
    acceptWithinMinutes: ACCEPT_WITHIN_MINUTES,
    fallback: FALLBACK,
    specialInstructions: SendTripBody.properties.specialInstructions,
    account: SendTripBody.properties.account,
    notes: SendTripBody.properties.notes,
    submitMode: SendTripBody.properties.submitMode,
    affiliateReservation: t.Optional(t.Object({ notes: t.Optional(t.String({ maxLength: 4000 })) }, { additionalProperties: true })),
  },
  {
    additionalProperties: true,
    description:
      "The option, your reservation number, the passengers (≥ 1 with first and last name) and any trip fields to " +
      "add (specialInstructions, account, notes, namesignInstructions, members no schema names…). The priced " +
      "fields — locations, passengerCount, luggageCount, totalTripDuration — are the quote's: sending one is 400 " +
      "naming it.",
    examples: [networkQuoteBook],
  },
);
