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
              { success: true, data: { bookings: 48, acceptedPct: 95.8, medianAcceptSeconds: 240, providerCancelPct: 2.1, onTimePct: 97.6 } },
            ],
          },
        ),
        ...errors(401, 404, 429),
      },
      detail: {
        tags: ["Quotes"],
        summary: "A provider's record over the last 90 days",
        description:
          "`Authorization: Bearer <core JWT>` or the platform header `token`: any signed-in company. From the status " +
          "history of every booking (quotes not counted) sent to the provider in the last 90 days: `bookings`; " +
          "`acceptedPct`, the share it accepted (CONFIRMED or any later status); `medianAcceptSeconds`, from the booking " +
          "to that acceptance; `providerCancelPct`, the share it rejected or cancelled; `onTimePct`, of those that " +
          "reached ON_LOCATION, the share that did at or before the pickup time. Percentages have one decimal; every " +
          "figure but `bookings` is null under 10 bookings. The same record is on each network quote option " +
          '(`provider.record`), which `sort: "reliability"` ranks by. Read at most every 5 minutes per provider. Only ' +
          "a company that offers rides (an IO operator) has a record: a netid no company holds and a requester-only " +
          "(CO) company answer the same 404 PROVIDER_NOT_FOUND. Each company may read 60 records a minute, found or " +
          "not: then 429 RATE_LIMITED with Retry-After (RateLimit-Limit, -Remaining and -Reset on every answer) " +
          "(docs/security.md#the-provider-record).",
        security: [{ bearer: [] }, { platformToken: [] }],
      },
    },
  );
}
