import { DEFAULT_SANDBOX_SCHEDULE, SandboxDispatcher } from "../../domain/usecases/sandbox-dispatch";
import type { ChauffeurTracking } from "../../domain/usecases/track-chauffeur";
import type { Wiring } from "./context";
import type { ReferenceData } from "./reference";
import type { TripWiring } from "./trips";

interface SandboxParts {
  manage: TripWiring["trips"]["manage"];
  flights: TripWiring["trips"]["flights"];
  tracking: ChauffeurTracking;
  airports: ReferenceData["airports"];
}

/** Sandbox companies, whose trips a simulated dispatcher answers. */
export function wireSandbox({ storage, logger, options }: Wiring, { manage, flights, tracking, airports }: SandboxParts) {
  const { bookings, users } = storage;
  const sandboxes = storage.sandboxes;
  const sandbox = new SandboxDispatcher({
    trips: sandboxes,
    bookings,
    // Its dispatcher plays a whole trip in a minute, whatever the pickup (docs/operator.md#the-sandbox).
    manage: { ...manage, simulated: true },
    tracking,
    callerOf: (netid) => users.findCaller(netid),
    airports,
    nowMs: () => Date.now(),
    schedule: { ...DEFAULT_SANDBOX_SCHEDULE, ...options.sandbox },
    skip: options.sandboxSkip,
    // Its flight statuses go through the route's own use case (docs/operator.md#a-flight-that-lands-late).
    flights: options.sandboxFlightDelay ? { follow: flights, delays: options.sandboxFlightDelay } : undefined,
    onError: (err, trip) => logger.warn({ err, transactionId: trip.transactionId }, "sandbox dispatcher move failed; retried on the next tick"),
  });
  return { sandboxes, sandbox };
}
