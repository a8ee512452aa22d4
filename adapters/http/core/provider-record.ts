import { Elysia, t } from "elysia";
import type { ProviderRecords } from "../../../domain/usecases/provider-record";
import { authMacros, type Authenticator } from "../auth";
import type { RateLimiter } from "../rate-limit";
import { errors } from "../schemas";
import { ProviderRecordData } from "./terms.model";

const NetidParams = t.Object({ netid: t.String({ maxLength: 64, description: "The provider's netid", examples: ["ACME-LIMO"] }) });

/**
 * A provider's record (docs/terms.md#provider-record): what any signed-in company may know of how a provider answers
 * its bookings. Each read spends the caller's budget first (docs/security.md#the-provider-record), found or not.
 */
export function coreProviderRecord(records: Pick<ProviderRecords, "recordOf">, auth: Authenticator, limiter: RateLimiter) {
  return new Elysia({ name: "core-provider-record", prefix: "/api" }).use(authMacros(auth)).get(
    "/providers/:netid/record",
    async ({ params, caller, set }) => {
      await limiter.check("recordReadsPerMinute", `c:${caller.netid}`, set.headers as Record<string, string>);
      return { success: true as const, data: await records.recordOf(params.netid) };
    },
    {
      anyAuth: true,
      params: NetidParams,
      response: {
        200: t.Object(
          { success: t.Literal(true), data: ProviderRecordData },
          {
            examples: [
              {
                success: true,
                data: {
                  offers: 48, requesters: 6, awaiting: 0, acceptedPct: 95.8, medianAcceptSeconds: 240, providerCancelPct: 2.1, onTimePct: 97.6,
                  bookings: 48,
                },
              },
            ],
          },
        ),
        ...errors(401, 404, 429),
      },
      detail: {
        tags: ["Quotes"],
        summary: "A provider's record over the last 90 days",
        description:
          "`Authorization: Bearer <core JWT>` or the platform header `token`: any signed-in company. Offer by offer, over " +
          "the bookings (quotes not counted) sent in the last 90 days (docs/terms.md#provider-record): `offers`, every " +
          "offer made to the provider — a booking the cascade moved on counts for each provider it was offered to, each " +
          "judged by its own answer — except the provider's bookings with itself and offers the requester cancelled " +
          "before an answer; `requesters`, from how many companies they came; `awaiting`, those not answered yet. Of " +
          "the answered offers: `acceptedPct`, the share it accepted (CONFIRMED or any later status); " +
          "`medianAcceptSeconds`, from the offer to that acceptance; `providerCancelPct`, the share it declined or " +
          "cancelled after accepting; `onTimePct`, of the accepted ones whose chauffeur is known to have reached the " +
          "pickup, the share that did at or before the pickup time — by its arrival from positions (`arrivedAt`) where " +
          "they tell it, else by ON_LOCATION. Percentages have one decimal; they and the median are null under 10 answered " +
          "offers. `bookings` is `offers` by its earlier name. The same record is on each network quote option " +
          '(`provider.record`), which `sort: "reliability"` ranks by. Every offer shows within a minute. A netid no ' +
          "company holds and a requester-only (CO) company answer the same 404 PROVIDER_NOT_FOUND: only a company that " +
          "offers rides (an IO operator) has a record. Each company may read 60 records a minute, found or not: then " +
          "429 RATE_LIMITED with Retry-After (RateLimit-Limit, -Remaining and -Reset on every answer) " +
          "(docs/security.md#the-provider-record).",
        security: [{ bearer: [] }, { platformToken: [] }],
      },
    },
  );
}
