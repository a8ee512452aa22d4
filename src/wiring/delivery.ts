import { DeliveryWorker } from "../../adapters/delivery/worker";
import { OutboundGuard } from "../../adapters/delivery/outbound-guard";
import type { ServiceMetrics } from "../../adapters/metrics/prometheus";
import { retryDelaySeconds } from "../../domain/delivery/retry";
import { attemptOutcomes } from "../../domain/usecases/deliver-booking";
import type { Wiring } from "./context";
import type { ReferenceData } from "./reference";

/** Delivery: the outbox, the worker that sends it, and the guard on every address the service sends to. */
export function wireDelivery(
  { storage, config, logger, options }: Wiring,
  { currencies, metrics }: Pick<ReferenceData, "currencies"> & { metrics: Pick<ServiceMetrics, "deliveryAttemptFailed"> },
) {
  const { outbox, integrations } = storage;
  // Without an explicit OUTBOUND_ALLOW_PRIVATE, private and special addresses are refused (CLI, tests, serve).
  const guard = new OutboundGuard({ allowPrivate: config.outboundAllowPrivate === true, requireHttps: config.production === true, resolver: options.resolver });
  // Delivery outcomes change the booking in the transaction that records the attempt.
  const worker = new DeliveryWorker(
    outbox,
    integrations,
    attemptOutcomes({ onAttemptFailed: (channel, final) => metrics.deliveryAttemptFailed(channel, final), currencies }),
    {
      retryDelay: (n) => retryDelaySeconds(n),
      timeoutMs: 10_000,
      concurrency: 8,
      idleMs: 1000,
      guard,
      sharedOutbox: storage.kind === "postgres",
      ...options.delivery,
    },
    logger,
  );
  return { guard, outbox, worker };
}
