import type { CostRecoveries } from "../../domain/settlement/ports";
import type { SettledRow } from "../../domain/settlement/statement";
import type { DisputeDeps } from "../../domain/usecases/statement-disputes";
import type { TimeZones } from "../../domain/trips/places";
import type { Storage } from "../storage/storage";
import { newEventId, type Wiring } from "./context";

/**
 * The give-back cost recoveries statements list (docs/settlement.md#statements-and-settlement), as COST_RECOVERY
 * lines owed by the provider: the recoveries the give-backs stored (docs/settlement.md#give-back-recovery), each with
 * its booking's number and status; a waived one owes nothing and is no line.
 */
function costRecoveriesOf(storage: Pick<Storage, "costRecoveries" | "bookings">): CostRecoveries {
  return async (me, start, end, them) => {
    const stored = them === undefined ? await storage.costRecoveries.of(me, start, end) : await storage.costRecoveries.between(me, them, start, end);
    const owed = stored.filter((r) => !r.waived && r.amountMinor > 0);
    const bookings = await Promise.all(owed.map((r) => storage.bookings.findById(r.transactionId)));
    return owed.map(
      (r, i): SettledRow => ({
        transactionId: r.transactionId,
        requesterId: r.requesterId,
        requesterResNo: bookings[i]?.requesterResNo ?? "",
        providerId: r.providerId,
        pickupDate: r.pickupDate,
        status: bookings[i]?.status ?? "CANCEL",
        kind: "COST_RECOVERY",
        units: String(r.amountMinor),
        currency: r.currency,
      }),
    );
  };
}

/** Statements and their disputes: GET /api/statements, POST /api/statements/disputes. */
export function wireSettlement({ storage, clock }: Wiring, parts: { timeZones: TimeZones; worker: { wake(): void } }) {
  const statements: DisputeDeps = {
    source: storage.statements,
    disputes: storage.disputes,
    recoveries: costRecoveriesOf(storage),
    companies: storage.companies,
    zones: parts.timeZones,
    clock,
    integrations: storage.integrations,
    runner: parts.worker,
    newId: newEventId,
  };
  return { statements };
}
