import { Elysia, type Static } from "elysia";
import { sendTrip, type SendTripDeps } from "../../../domain/usecases/send-trip";
import {
  cancelTrip,
  cancelTripByResNo,
  findBookingToRead,
  findBookingByResNo,
  providerUpdateStatus,
  providerUpdateStatusByResNo,
  type ManageTripDeps,
} from "../../../domain/usecases/manage-trip";
import type { IdempotencyStore } from "../../../domain/trips/ports";
import { authMacros, type Authenticator } from "../auth";
import { platformRoute, tokenOperation } from "../platform-route";
import { gnetReadFor } from "../../../domain/trips/gnet-reservation";
import { GnetReservationResponse } from "./gnet-reservation.model";
import type { PositionStore } from "../../../domain/tracking/position";
import { idempotent } from "../idempotency";
import { documentedResponses, errors, IdempotencyHeaders, ResNoParams, TransactionIdParams } from "../schemas";
import type { RateLimiter } from "../rate-limit";
import { awaitDelivery, type DeliveryDeps } from "../../../domain/usecases/deliver-booking";
import { SendTripBody, SendTripResponse } from "./send-trip.model";
import { ProviderUpdateBody } from "./provider-update.model";
import { dropNullOptionals } from "../null-fields";
import { alongTypeErrors, thrownFieldErrors } from "../body-checks";
import { checkProviderUpdate } from "../../../domain/trips/provider-update";
import { validateSendTrip } from "../../../domain/trips/send-trip-request";
import { answeringOk } from "./answer-ok";
import * as docs from "./trips.docs";

export interface PlatformTripDeps {
  send: SendTripDeps;
  manage: ManageTripDeps;
  idempotency: IdempotencyStore;
  delivery: DeliveryDeps;
  auth: Authenticator;
  rateLimiter: RateLimiter;
  positions: PositionStore;
}

type ByTransactionId = Static<typeof TransactionIdParams>;
type ByResNo = Static<typeof ResNoParams>;
type ProviderUpdate = Static<typeof ProviderUpdateBody>;

// GNet clients send null for "absent": removed before validation, so null never fails a type check.
/** A provider update's wrong-typed fields and the fields breaking its rules are named together (docs/integration.md#errors). */
const providerUpdateAlongTypeErrors = alongTypeErrors((body) => thrownFieldErrors(() => checkProviderUpdate(body as never)));
const updateBody = {
  // The members read named (as every hook here): a context handed on whole makes Elysia parse cookies and the query.
  transform: ({ request, body }: { request: Request; body: unknown }) => {
    dropNullOptionals(ProviderUpdateBody, body);
    providerUpdateAlongTypeErrors({ request, body });
  },
  body: ProviderUpdateBody,
};

/** Platform trip operations: sendTrip, provider status updates, requester cancel, booking lookup. */
export function platformTrips(deps: PlatformTripDeps) {
  const clock = deps.send.clock;
  // A wrong-typed field and a field breaking a trip rule are named together (docs/integration.md#errors).
  const sendTripAlongTypeErrors = alongTypeErrors((body) => {
    const checked = validateSendTrip(body as never, deps.send.currencies);
    return checked.ok ? [] : checked.errors;
  });
  // Operations the reference system answers with the JSON string "OK", under the request's Idempotency-Key.
  const ok = answeringOk(deps.idempotency, clock);
  const cancelByResNo = {
    handler: ok.handler<ByResNo>(
      (p) => `cancelTripByResNo:${p.netid.toLowerCase()}:${p.resNo}`,
      (caller, p) => cancelTripByResNo(deps.manage, caller, p.netid, p.resNo),
    ),
    hook: (doc: { hide?: true }) => ok.hook(doc, { params: ResNoParams }, [400, 401, 403, 404, 409], docs.cancelTripByResNoDoc),
  };

  return new Elysia({ name: "platform-trips" })
    .use(authMacros(deps.auth))
    .use((app) =>
      platformRoute("/sendTrip", (path, doc) =>
        app.post(
          path,
          async ({ body, caller, request, set }) => {
            await deps.rateLimiter.check("sendTripPerMinute", caller.netid, set.headers as Record<string, string>);
            return idempotent(deps.idempotency, clock, { netid: caller.netid, request, operation: "sendTrip", body, set }, async () => {
              const result = await sendTrip(deps.send, caller, body);
              if (body.submitMode?.trim().toUpperCase() !== "WAIT") return { success: true as const, ...result };
              // WAIT answers what the provider's endpoint answered: its reservation number, price and fees.
              const { booking, deliveryError } = await awaitDelivery(deps.delivery, result.transactionId);
              return {
                success: true as const,
                ...result,
                ...(booking ? { status: booking.status, fees: booking.trip.fees, totalAmount: booking.totalAmount } : {}),
                ...(booking?.providerResNo ? { reservationId: booking.providerResNo } : {}),
                ...(deliveryError !== undefined ? { deliveryError } : {}),
              };
            });
          },
          tokenOperation(
            doc,
            {
              transform: ({ request, body }: { request: Request; body: unknown }) => {
                dropNullOptionals(SendTripBody, body);
                sendTripAlongTypeErrors({ request, body });
              },
              body: SendTripBody,
              headers: IdempotencyHeaders,
            },
            { responses: documentedResponses({ 200: SendTripResponse, ...errors(400, 401, 403, 404, 409, 413, 429) }), ...docs.sendTripDoc },
          ),
        ),
      ),
    )
    .use((app) =>
      platformRoute("/providerUpdateStatusByTransactionId/:transactionId", (path, doc) =>
        app.post(
          path,
          ok.handlerWithBody<ByTransactionId, ProviderUpdate>(
            (p) => `providerUpdateStatus:${p.transactionId.toLowerCase()}`,
            (caller, p, body) => providerUpdateStatus(deps.manage, caller, p.transactionId, body),
          ),
          ok.hook(doc, { params: TransactionIdParams, ...updateBody }, [400, 401, 403, 404, 409, 413], docs.providerUpdateStatusDoc),
        ),
      ),
    )
    .use((app) =>
      platformRoute("/cancelTripByTransactionId/:transactionId", (path, doc) =>
        app.post(
          path,
          ok.handler<ByTransactionId>(
            (p) => `cancelTrip:${p.transactionId.toLowerCase()}`,
            (caller, p) => cancelTrip(deps.manage, caller, p.transactionId),
          ),
          ok.hook(doc, { params: TransactionIdParams }, [400, 401, 403, 404, 409], docs.cancelTripDoc),
        ),
      ),
    )
    .use((app) =>
      platformRoute("/getReservationByTransactionId/:transactionId", (path, doc) =>
        app.get(
          path,
          async ({ caller, params }) => gnetReadFor(await findBookingToRead(deps.manage, caller, params.transactionId), caller, deps.positions),
          // Documented, not checked: a run-time check would drop the members no schema names.
          tokenOperation(
            doc,
            { params: TransactionIdParams },
            { responses: documentedResponses({ 200: GnetReservationResponse, ...errors(400, 401, 404) }), ...docs.getReservationByTransactionIdDoc },
          ),
        ),
      ),
    )
    .use((app) =>
      platformRoute("/providerUpdateStatusByResNo/:netid/:resNo", (path, doc) =>
        app.post(
          path,
          ok.handlerWithBody<ByResNo, ProviderUpdate>(
            (p) => `providerUpdateStatusByResNo:${p.netid.toLowerCase()}:${p.resNo}`,
            (caller, p, body) => providerUpdateStatusByResNo(deps.manage, caller, p.netid, p.resNo, body),
          ),
          ok.hook(doc, { params: ResNoParams, ...updateBody }, [400, 401, 403, 404, 409, 413], docs.providerUpdateStatusByResNoDoc),
        ),
      ),
    )
    .use((app) =>
      platformRoute("/getReservationByReservationId/:netid/:resNo", (path, doc) =>
        app.get(
          path,
          async ({ caller, params }) => gnetReadFor(await findBookingByResNo(deps.manage, caller, params.netid, params.resNo), caller, deps.positions),
          tokenOperation(
            doc,
            { params: ResNoParams },
            { responses: documentedResponses({ 200: GnetReservationResponse, ...errors(400, 401, 404) }), ...docs.getReservationByReservationIdDoc },
          ),
        ),
      ),
    )
    .use((app) => platformRoute("/cancelTripByResNo/:netid/:resNo", (path, doc) => app.get(path, cancelByResNo.handler, cancelByResNo.hook(doc))))
    .use((app) => platformRoute("/cancelTripByResNo/:netid/:resNo", (path, doc) => app.post(path, cancelByResNo.handler, cancelByResNo.hook(doc))));
}
