import type { CostRecoveries } from "../../domain/settlement/ports";
import type { DisputeDeps } from "../../domain/usecases/statement-disputes";
import type { TimeZones } from "../../domain/trips/places";
import { newEventId, type Wiring } from "./context";

/**
 * The give-back cost recoveries statements list (docs/settlement.md#statements-and-settlement). The exchange does not
 * record them yet: until it does, this seam lists none, and statements hold fares and cancellation fees only.
 */
const costRecoveries: CostRecoveries = async () => [];

/** Statements and their disputes: GET /api/statements, POST /api/statements/disputes. */
export function wireSettlement({ storage, clock }: Wiring, parts: { timeZones: TimeZones; worker: { wake(): void } }) {
  const statements: DisputeDeps = {
    source: storage.statements,
    disputes: storage.disputes,
    recoveries: costRecoveries,
    companies: storage.companies,
    zones: parts.timeZones,
    clock,
    integrations: storage.integrations,
    outbox: storage.outbox,
    runner: parts.worker,
    liveEvents: storage.liveEvents,
    newId: newEventId,
  };
  return { statements };
}
