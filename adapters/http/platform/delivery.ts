import { Elysia } from "elysia";
import { retryFailedDelivery, type DeliveryDeps } from "../../../domain/usecases/deliver-booking";
import { authMacros, jsonString, type Authenticator } from "../auth";
import { platformRoute, tokenOperation } from "../platform-route";
import { documentedResponses, errors, TransactionIdParams } from "../schemas";
import { OK } from "./answer-ok";

/** retryTransaction: a booking's failing or failed deliveries are attempted again now (either party may ask). */
export function platformDelivery(deps: DeliveryDeps, auth: Authenticator) {
  return new Elysia({ name: "platform-delivery" })
    .use(authMacros(auth))
    .use((app) =>
      platformRoute("/retryTransaction/:transactionId", (path, doc) =>
        app.get(
          path,
          async ({ caller, params }) => {
            await retryFailedDelivery(deps, caller, params.transactionId);
            return jsonString("OK");
          },
          tokenOperation(doc, { params: TransactionIdParams }, {
            responses: documentedResponses({ 200: OK, ...errors(400, 401, 404, 409) }),
            tags: ["Trips"],
            summary: "Retry a failing or failed delivery to the provider, now",
            description:
              "Attempts the booking's deliveries to the provider at once — those failing and still retrying on " +
              "their schedule (affiliateReservation.status FAILED), those given up, and any still queued — to the " +
              "provider's current endpoint, with a fresh set of attempts; a booking that had turned FAILED goes " +
              "back to BOOKING_REQUEST. affiliateReservation.status stays FAILED until an attempt succeeds, which " +
              "puts back the booking's status (changeLogs and the webhook booking.delivery_recovered say so). " +
              "Either party may ask; anyone else and an unknown id get 404; a non-UUID id is 400; 409 " +
              "NOTHING_TO_RETRY only when nothing is pending or failing. Answers the JSON string \"OK\".",
          }),
        ),
      ),
    );
}
