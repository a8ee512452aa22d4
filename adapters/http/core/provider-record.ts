import { Elysia, t } from "elysia";
import type { ProviderRecords } from "../../../domain/usecases/provider-record";
import { authMacros, type Authenticator } from "../auth";
import { errors } from "../schemas";
import { ProviderRecordData } from "./terms.model";

const NetidParams = t.Object({ netid: t.String({ maxLength: 64, description: "The provider's netid", examples: ["ACME-LIMO"] }) });

/** A provider's record (docs/terms.md#provider-record): what any signed-in company may know of how a provider answers its bookings. */
export function coreProviderRecord(records: Pick<ProviderRecords, "recordOf">, auth: Authenticator) {
  return new Elysia({ name: "core-provider-record", prefix: "/api" }).use(authMacros(auth)).get(
    "/providers/:netid/record",
    async ({ params }) => ({ success: true as const, data: await records.recordOf(params.netid) }),
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
        ...errors(401, 404),
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
          "cancelled after accepting; `onTimePct`, of the accepted ones that reached ON_LOCATION, the share that did at " +
          "or before the pickup time. Percentages have one decimal; they and the median are null under 10 answered " +
          "offers. `bookings` is `offers` by its earlier name. The same record is on each network quote option " +
          '(`provider.record`), which `sort: "reliability"` ranks by. Every offer shows within a minute. A netid no ' +
          "company holds: 404 PROVIDER_NOT_FOUND.",
        security: [{ bearer: [] }, { platformToken: [] }],
      },
    },
  );
}
