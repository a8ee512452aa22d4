import { Elysia, t } from "elysia";
import { retryFailedDelivery, type DeliveryDeps } from "../../../domain/usecases/deliver-booking";
import { authMacros, jsonString, type Authenticator } from "../auth";
import { PLATFORM_SECURITY, platformRoute } from "../platform-route";
import { errors } from "../schemas";
import { TransactionIdParams } from "../trip-schemas";

/** retryTransaction: queue a booking's failed deliveries again (either party may ask). */
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
          {
            platformAuth: true,
            params: TransactionIdParams,
            response: { 200: t.String({ examples: ["OK"] }), ...errors(400, 401, 404, 409) },
            detail: {
              tags: ["Trips"],
              summary: "Retry a failed delivery to the provider",
              description:
                "Queues the booking's failed deliveries again (to the provider's current endpoint), with a fresh set of attempts; a booking that had turned FAILED goes back to BOOKING_REQUEST. Either party may ask; anyone else and an unknown id get 404; 409 NOTHING_TO_RETRY when no delivery failed. Answers the JSON string \"OK\".",
              security: PLATFORM_SECURITY,
              ...doc,
            },
          },
        ),
      ),
    );
}
