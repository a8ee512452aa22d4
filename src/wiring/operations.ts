import { RateLimiter } from "../../adapters/http/rate-limit";
import { ServiceMetrics } from "../../adapters/metrics/prometheus";
import type { RateBudgets } from "../../domain/rate-limit";
import { systemClock, type Wiring } from "./context";
import type { FleetWiring } from "./fleet";

/** Account checks need no credential: a client address may make 20 a minute, so the check cannot enumerate accounts. */
const ACCOUNT_CHECKS_PER_MINUTE = 20;
/** A company may read 60 provider records a minute: enough for a person, too few to walk the netids (docs/security.md#the-provider-record). */
const RECORD_READS_PER_MINUTE = 60;

/** What running the service needs watched and bounded: the metrics and the request rate limits. */
export function wireOperations(
  { storage, config, clock }: Wiring,
  { fleetIndex, searchAnswers, rateBudgets }: Pick<FleetWiring, "fleetIndex" | "searchAnswers"> & { rateBudgets: RateBudgets },
) {
  const { outbox, bookings } = storage;
  // Without configured limits (tests, CLI) nothing is limited; `serve` passes the validated environment.
  const metrics = new ServiceMetrics({
    outbox: () => outbox.backlog(),
    fleetIndex: () => ({ size: fleetIndex.size, builtAtMs: fleetIndex.viewBuiltAtMs }),
    bookingWriterQueue: () => bookings.pendingChanges,
    searchAnswers: () => ({ hits: searchAnswers.hits, misses: searchAnswers.misses, bytes: searchAnswers.sizeBytes }),
  });
  const rateLimiter = new RateLimiter(
    {
      accountCheckPerMinute: ACCOUNT_CHECKS_PER_MINUTE,
      recordReadsPerMinute: RECORD_READS_PER_MINUTE,
      ...(config.rateLimits ?? { searchPerMinute: 0, sendTripPerMinute: 0 }),
    },
    clock === systemClock ? undefined : () => clock.now(),
    rateBudgets,
  );
  return { metrics, rateLimiter };
}
