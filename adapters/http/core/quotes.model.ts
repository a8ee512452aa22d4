import { t } from "elysia";
import { ACCEPT_WITHIN_MINUTES, FALLBACK } from "./offers.model";
import { SendTripBody } from "../platform/send-trip.model";
import networkQuoteRequest from "../examples/network-quote-request.json";
import networkQuoteResponse from "../examples/network-quote-response.json";
import networkQuoteBook from "../examples/network-quote-book.json";
import { MAX_NAMED_PROVIDERS } from "../../../domain/pricing/network-quote";
import { ProviderRecordData, TermsOut } from "./terms.model";
import { Breakdown } from "./rates.model";

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
    currency: t.Optional(
      t.String({
        maxLength: 20,
        description:
          "ISO 4217 (capitals): show every option also converted into it (`converted`) and rank by the converted fee; " +
          "default your integration's displayCurrency. A code that is no fare currency is 400 naming currency",
        examples: ["EUR"],
      }),
    ),
    sort: t.Optional(
      t.String({
        maxLength: 20,
        description:
          'price (default): cheapest first; reliability: by the provider\'s record (`provider.record`, offer by offer, ' +
          "docs/terms.md#provider-record: acceptedPct, then onTimePct, highest first, providers without figures last), " +
          "then price. Anything else: 400 naming sort",
        examples: ["reliability"],
      }),
    ),
    extras: t.Optional(
      t.Array(t.Unknown(), {
        maxItems: 20,
        description:
          "Extras the trip asks: [{code, quantity}] (quantity 1–100, default 1), priced from each provider's rate card. A " +
          "provider that cannot supply one (no card, or its card lacks it or offers fewer) is left out (warning " +
          "EXTRA_NOT_OFFERED); a bad entry is 400 naming it (extras[0].quantity)",
        examples: [[{ code: "CHILD_SEAT", quantity: 1 }]],
      }),
    ),
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

/** An option's fee as converted for the viewer (GET /api/fx's table, cross rates through EUR). */
export const ConvertedFee = t.Object(
  {
    fee: t.String({ description: "The fee converted, rounded half up to the target currency's minor unit", examples: ["61.36"] }),
    currency: t.String({ description: "ISO 4217: the quote's `currency` of the request (or your displayCurrency)", examples: ["EUR"] }),
    rate: t.Number({ description: "Units of `currency` per unit of the option's currency (8 significant digits): fee × rate", examples: [0.0058159823] }),
    rateDate: t.String({ description: "The day of the FX table's rates (YYYY-MM-DD)", examples: ["2024-06-28"] }),
  },
  {
    description:
      "The option's fee converted with the exchange's FX table (docs/fx.md#what-a-network-quote-shows): present when the quote has a display " +
      "currency and the table has a rate for the option's currency. The option's own `fee` and `currency` stay the price.",
  },
);

const Option = t.Object({
  quoteOptionId: t.String({ description: "`<provider netid>:<code>`: what POST /api/quotes/{quoteId}/book names" }),
  provider: t.Object({ netid: t.String(), name: t.String(), record: t.Optional(ProviderRecordData) }),
  code: t.String({ description: "The provider's fleet entry (slug): what a sendTrip with quoteId names in fees[0].code" }),
  name: t.String(),
  description: t.String(),
  vehType: t.String(),
  passengerCount: t.String({ description: "Seats of the vehicle" }),
  luggageCount: t.Optional(t.String({ description: "Luggage capacity; absent when unknown" })),
  fee: t.String({ description: "Decimal string in the option's own currency, with its minor unit's digits: the provider's price" }),
  currency: t.String({ description: "ISO 4217: the currency the provider prices this vehicle in (options may differ)" }),
  nearestKm: t.Number({ description: "Great-circle km from the vehicle to the pickup (1 decimal)" }),
  images: t.Array(t.String()),
  converted: t.Optional(ConvertedFee),
  terms: t.Optional(TermsOut),
  breakdown: Breakdown,
});

/** The warnings a network quote can carry. */
const WARNING_CODES = [
  "NO_VEHICLE_NEAR_PICKUP",
  "OTHER_CURRENCIES_LEFT_OUT",
  "VEHICLES_BUSY",
  "SHORT_NOTICE",
  "EXTRA_NOT_OFFERED",
  "UNPRICED_VEHICLES",
  "TRIP_TOO_LONG",
  "PICKUP_CITY_AMBIGUOUS",
  "PICKUP_TIME_ADJUSTED",
  "DROPOFF_APPROXIMATE",
  "NO_FX_RATE",
  "FX_RATES_STALE",
  "CANCELLATION_FEE_APPLIES",
] as const;

const Warning = t.Object(
  {
    // The codes as an enum in the document; the answer's own check stays a string (a stored quote keeps its warnings).
    code: t.String({
        enum: [...WARNING_CODES],
        description:
          "NO_VEHICLE_NEAR_PICKUP (no option), OTHER_CURRENCIES_LEFT_OUT (vehicles priced in other currencies were " +
          "left out; `count`, `currencies`), VEHICLES_BUSY (held vehicles left out; `count`), SHORT_NOTICE (providers left out: " +
          "the pickup is sooner than their minimumNoticeMinutes; `count`), EXTRA_NOT_OFFERED (vehicles of providers that " +
          "cannot supply an asked extra left out; `count`, `codes`), UNPRICED_VEHICLES (vehicles no rate prices left out: " +
          "no rule of their provider's card prices them and their own rates are 0, a base of 0 never offered whatever the " +
          "minimum fare would add; `count`), TRIP_TOO_LONG (vehicles of providers whose maxTripKm the trip's road " +
          "distance exceeds left out; `count`), " +
          "PICKUP_CITY_AMBIGUOUS (the pickup's city matches other places of a similar size: the most populous was chosen; " +
          "`city` names it, `Springfield, MO, US`), PICKUP_TIME_ADJUSTED (the pickup's wall-clock time does not exist in its " +
          "zone, skipped by the spring clock change: moved forward by the gap, 02:30 → 03:30 in New York; `message` says " +
          "what was sent and what is used), DROPOFF_APPROXIMATE (the drop-off or a stop, `field`, was placed at " +
          "its city's centre, `city`: the price may change when exact coordinates come), NO_FX_RATE (options in a " +
          "currency the FX table has no rate for, kept after the others; `count`, `currencies`), FX_RATES_STALE (the FX " +
          "rates used are more than 7 days old; `rateDate`), CANCELLATION_FEE_APPLIES (options already past their free " +
          "cancellation: booked now, cancelling costs a fee once the provider accepts; `count`)",
        examples: ["OTHER_CURRENCIES_LEFT_OUT"],
      }),
    message: t.String(),
    field: t.Optional(t.String()),
    count: t.Optional(t.Number()),
    currencies: t.Optional(t.Array(t.String())),
    city: t.Optional(
      t.String({ description: "PICKUP_CITY_AMBIGUOUS: the place chosen; DROPOFF_APPROXIMATE: the city", examples: ["Springfield, MO, US"] }),
    ),
    codes: t.Optional(t.Array(t.String(), { description: "EXTRA_NOT_OFFERED: the extras' codes" })),
  },
  { additionalProperties: true },
);

export const NetworkQuoteData = t.Object({
  quoteId: t.String({ format: "uuid" }),
  validUntil: t.String({ description: "ISO 8601 UTC: 24 h after the quote; booking an option later is 409 QUOTE_EXPIRED" }),
  currency: t.Union([t.String(), t.Null()], {
    description:
      "The currency of totalAmount: the display currency (request `currency`, else your displayCurrency) when the first " +
      "option could be converted into it, else the first option's own; null without options",
  }),
  totalAmount: t.Union([t.String(), t.Null()], { description: "The first (cheapest) option's fee in `currency`; null without options" }),
  options: t.Array(Option, {
    maxItems: 50,
    description: "Cheapest first by the converted fee (options without an FX rate last), then nearest; at most 5 per provider and 50 in all",
  }),
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
