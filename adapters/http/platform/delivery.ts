import { Elysia, t } from "elysia";
import { roleOf, type Booking } from "../../../domain/trips/booking";
import { retryDelivery } from "../../../domain/delivery/outcomes";
import { bookingNotFound } from "../../../domain/trips/decisions";
import { requireTransactionId } from "../../../domain/usecases/manage-trip";
import type { Clock } from "../../../domain/ports";
import type { Db } from "../../sqlite/db";
import type { SqliteBookingRepository } from "../../sqlite/trip-repositories";
import type { SqliteIntegrationRepository, SqliteOutbox } from "../../sqlite/delivery-repositories";
import type { DeliveryWorker } from "../../delivery/worker";
import { authMacros, jsonString, versioned, type Authenticator } from "../auth";
import { errors } from "../schemas";
import { TransactionIdParams } from "../trip-schemas";

export interface DeliveryDeps {
  db: Db;
  bookings: SqliteBookingRepository;
  outbox: SqliteOutbox;
  worker: DeliveryWorker;
  integrations: SqliteIntegrationRepository;
  clock: Clock;
}

/** How long `submitMode: WAIT` waits for the first delivery attempt: the 10 s partner timeout plus margin. */
export const WAIT_FOR_DELIVERY_MS = 12_000;

/** What submitMode WAIT adds to sendTrip's answer once the provider's endpoint answered. */
export interface WaitOutcome {
  booking: Booking | undefined;
  /** Why the first attempt failed (the partner refused, timed out, answered an error), when it did. */
  deliveryError?: string;
}

/**
 * submitMode WAIT: waits (bounded) for the first attempt to deliver the booking's newest message to the
 * provider, then gives the booking as that attempt left it (the provider's reservation number, totalAmount and
 * fees from its reply) and, when the attempt failed, why.
 */
export async function awaitDelivery(deps: DeliveryDeps, transactionId: string, timeoutMs = WAIT_FOR_DELIVERY_MS): Promise<WaitOutcome> {
  const message = deps.outbox.latest(transactionId, "delivery");
  let attempt = message;
  if (message && message.status === "pending" && message.attempts === 0) {
    attempt = await deps.worker.waitForAttempt(message.eventId, timeoutMs, () => {
      const now = deps.outbox.get(message.id);
      return now && (now.attempts > 0 || now.status !== "pending") ? now : undefined;
    });
  }
  const failed = attempt && attempt.status !== "delivered" && attempt.attempts > 0 && attempt.lastError;
  return { booking: await deps.bookings.findById(transactionId), ...(failed ? { deliveryError: attempt!.lastError! } : {}) };
}

/** retryTransaction: queue a booking's failed deliveries again (either party may ask). */
export function platformDelivery(deps: DeliveryDeps, auth: Authenticator) {
  let app = new Elysia({ name: "platform-delivery", prefix: "/Platform.svc" }).use(authMacros(auth));
  for (const path of versioned("/retryTransaction/:transactionId")) {
    app = app.get(
      path,
      ({ caller, params }) => {
        const transactionId = requireTransactionId(params.transactionId);
        const now = deps.clock.now();
        deps.db.$client.transaction(() => {
          const failed = deps.outbox.forBooking(transactionId).some((m) => m.channel === "delivery" && m.status === "failed");
          deps.bookings.changeInTransaction({ transactionId }, (b) => {
            if (!b || !roleOf(b, caller.netid)) throw bookingNotFound();
            return retryDelivery(b, failed, caller.uid, now);
          });
          const booking = deps.bookings.findByIdSync(transactionId)!;
          deps.outbox.requeueFailed(transactionId, "delivery", now, deps.integrations.getSync(booking.providerId)?.deliveryUrl ?? undefined);
        })();
        deps.worker.wake();
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
          hide: path !== "/retryTransaction/:transactionId",
        },
      },
    ) as unknown as typeof app;
  }
  return app;
}
