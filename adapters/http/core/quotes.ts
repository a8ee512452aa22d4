import { Elysia } from "elysia";
import { bookNetworkQuote, findNetworkQuote, networkQuoteView, requestNetworkQuote, type NetworkQuoteDeps } from "../../../domain/usecases/network-quote";
import type { IdempotencyStore } from "../../../domain/trips/ports";
import { authMacros, type Authenticator } from "../auth";
import { idempotent } from "../idempotency";
import { documentedResponses, errors, IdempotencyHeaders } from "../schemas";
import type { RateLimiter } from "../rate-limit";
import { dropNullOptionals } from "../null-fields";
import { SendTripResponse } from "../platform/send-trip.model";
import { BookQuoteBody, NetworkQuoteBody, NetworkQuoteResponse, QuoteIdParams } from "./quotes.model";
import bookedExample from "../examples/network-quote-booked.json";

const SECURITY: Array<Record<string, string[]>> = [{ bearer: [] }, { platformToken: [] }];
const AUTH = "`Authorization: Bearer <core JWT>` or the platform header `token` (as GET /api/reservation accepts).";

/** Network quotes: price one trip across the providers that would take it, read the quote back, book an option. */
export function coreQuotes(deps: NetworkQuoteDeps, auth: Authenticator, idempotency: IdempotencyStore, rateLimiter: RateLimiter) {
  return new Elysia({ name: "core-quotes", prefix: "/api" })
    .use(authMacros(auth))
    .post(
      "/quotes",
      async ({ body, caller, request, set }) => {
        await rateLimiter.check("searchPerMinute", caller.netid, set.headers as Record<string, string>);
        return idempotent(idempotency, deps.clock, { netid: caller.netid, request, operation: "networkQuote", body, set }, async () => ({
          success: true as const,
          data: await requestNetworkQuote(deps, caller, body),
        }));
      },
      {
        anyAuth: true,
        transform: ({ body }) => dropNullOptionals(NetworkQuoteBody, body),
        body: NetworkQuoteBody,
        headers: IdempotencyHeaders,
        detail: {
          responses: documentedResponses({ 200: NetworkQuoteResponse, ...errors(400, 401, 409, 413, 429) }),
          tags: ["Quotes"],
          summary: "Network quote: price a trip across every provider that serves its pickup",
          description:
            `${AUTH} Instant prices, from the providers' published rates, from every provider that would take the ` +
            `trip from you (its acceptTripsFrom setting; \`partnersOnly:true\` keeps your active partners only; ` +
            `\`providers\` narrows to those netids) and has active vehicles serving the pickup (listing its ` +
            `airport, or within the provider's serviceRadiusKm of it) that seat the party and hold its luggage ` +
            `when given. Every currency is kept: each option keeps the provider's own fee and currency; with ` +
            `\`currency\` (or your integration's displayCurrency) each also carries \`converted: {fee, currency, rate, ` +
            `rateDate}\` from the exchange's FX table (GET /api/fx; cross rates through EUR, rounded to the target's ` +
            `minor unit) and options rank by the converted fee (without a display currency, by their value in EUR); an ` +
            `option whose currency has no rate ranks after the others, warning NO_FX_RATE; rates older than 7 days ` +
            `add FX_RATES_STALE. The quote's \`currency\` and \`totalAmount\` are its first option's fee as shown ` +
            `(converted when it could be). Booking an option books the provider's price; the booking records the ` +
            `converted amount shown (\`convertedAmount\`). A provider's map of your preferred vehicle type ranks its options of the mapped type first ` +
            `among its own, as for a QUOTE sent to it. Options cheapest first, then nearest; at most 5 per ` +
            `provider and 50 in all; none: NO_VEHICLE_NEAR_PICKUP. Stored 24 h and visible only to your company; ` +
            `nothing is sent to any provider until you book an option. A quote is a price list, not a booking: it ` +
            `is readable and bookable as soon as this answer arrives (from any instance), but it is stored without ` +
            `waiting for a disk flush, so an operating-system or database-server crash within a moment of the ` +
            `answer may lose it (then GET answers 404 QUOTE_NOT_FOUND): simply ask again. Bookings are always ` +
            `flushed before they are answered. The drop-off and each stop are placed as the pickup is: coordinates, an ` +
            `airport's IATA code, the address (when the service has a geocoder, GEOCODER_URL), else the city's centre ` +
            `(warning DROPOFF_APPROXIMATE); docs/places.md#drop-offs-and-stops. 400 names every failing field (a pickup ` +
            `that cannot be placed names locations.pickup, PICKUP_NOT_LOCATED; a drop-off or stop, locations.dropOff or ` +
            `locations.stops[i], DROPOFF_NOT_LOCATED; affiliateReservation.providerId must not be sent). Supports \`Idempotency-Key\`. ` +
            `Bounded per company (nothing stored past a bound, 429 with Retry-After): QUOTE_STORE_QUOTA after 2,000 ` +
            `quotes in the last hour, QUOTE_TOO_LARGE for a quote over 256 KiB as stored (trip with its extra members, ` +
            `options, warnings), QUOTE_STORE_FULL once the quotes it keeps (48 h; one booked with a fallback, until its ` +
            `pickup + 24 h) would pass 64 MiB (docs/security.md#per-company-store-bounds).`,
          security: SECURITY,
        },
      },
    )
    .get(
      "/quotes/:quoteId",
      async ({ caller, params }) => ({ success: true as const, data: networkQuoteView(await findNetworkQuote(deps, caller, params.quoteId)) }),
      {
        anyAuth: true,
        params: QuoteIdParams,
        response: { 200: NetworkQuoteResponse, ...errors(401, 404) },
        detail: {
          tags: ["Quotes"],
          summary: "Get a network quote of yours",
          description:
            `${AUTH} Only your company sees its quotes: anyone else's, and an unknown id, are the same 404 ` +
            `QUOTE_NOT_FOUND. Kept a day past validUntil, then removed.`,
          security: SECURITY,
        },
      },
    )
    .post(
      "/quotes/:quoteId/book",
      async ({ body, caller, params, request, set }) => {
        await rateLimiter.check("sendTripPerMinute", caller.netid, set.headers as Record<string, string>);
        return idempotent(
          idempotency,
          deps.clock,
          { netid: caller.netid, request, operation: `bookQuote:${params.quoteId.toLowerCase()}`, body, set },
          async () => ({
            success: true as const,
            ...(await bookNetworkQuote(deps, caller, params.quoteId, body)),
          }),
        );
      },
      {
        anyAuth: true,
        params: QuoteIdParams,
        transform: ({ body }) => dropNullOptionals(BookQuoteBody, body),
        body: BookQuoteBody,
        headers: IdempotencyHeaders,
        detail: {
          responses: documentedResponses({ 200: { ...SendTripResponse, examples: [bookedExample] }, ...errors(400, 401, 403, 404, 409, 413, 429) }),
          tags: ["Quotes"],
          summary: "Book an option of a network quote",
          description:
            `${AUTH} Creates an ordinary booking with the option's provider at the quoted price — the same as a ` +
            `sendTrip NEW REGULAR to that provider with \`quoteId\` and \`fees:[{code}]\`: the quote's trip plus ` +
            `the fields you add, the option as the booking's only fee line and its fee as totalAmount, delivered ` +
            `to that provider (and no other) like any NEW, shown in both reads and your webhooks. Booking again ` +
            `with the same requesterResNo and body answers the same booking (another option under that ` +
            `requesterResNo: 409 DUPLICATE_RESERVATION). An unknown quoteOptionId: 400 naming it. A priced field ` +
            `you send (locations, passengerCount, luggageCount, totalTripDuration, extras) replaces the quote's and ` +
            `must describe the quoted trip: another pickup, drop-off or stops, count, extras or duration, or a ` +
            `pickup time more than 60 minutes from the quoted one, is 409 QUOTE_TRIP_MISMATCH naming each field in ` +
            `\`fields\` and \`errors\` (nothing booked). A later sendTrip UPDATE of a priced field re-prices the ` +
            `booked vehicle, or is 409 REQUOTE_NEEDED; the fee lines stay the provider's. Someone else's or an ` +
            `unknown quote: 404 QUOTE_NOT_FOUND; after validUntil: 409 QUOTE_EXPIRED; a provider that now takes ` +
            `trips only from partners: 403 NOT_PARTNER; the vehicle booked or blocked since: 409 VEHICLE_UNAVAILABLE; ` +
            `10 unaccepted bookings of yours holding that provider's vehicles already, or 50 in all (PROFESSIONAL: 50 ` +
            `and 500): 429 HOLD_LIMIT with \`limit\`, \`scope\` and Retry-After, nothing booked ` +
            `(docs/availability.md#hold-limits). Supports \`Idempotency-Key\`.`,
          security: SECURITY,
        },
      },
    );
}
