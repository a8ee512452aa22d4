import { KdFleetSearchIndex } from "../../adapters/geo/fleet-index";
import { SearchAnswerCache } from "../../domain/fleet/answer-cache";
import { HoldIndex } from "../../domain/fleet/holds";
import type { Wiring } from "./context";
import type { ReferenceData } from "./reference";

/** Bytes of recent fleet search answers kept (serialised) for the current index generation. */
const SEARCH_ANSWER_CACHE_BYTES = 32 * 1024 * 1024;

/** The fleet: its repository, the search index over it (and its answer cache), fleet changes and availability. */
export function wireFleet({ storage, clock, logger }: Wiring, { airports, gazetteer }: ReferenceData) {
  const { fleet, companies } = storage;
  const fleetIndex = new KdFleetSearchIndex({
    source: storage.fleetSource,
    indexFile: storage.indexFile,
    onWorkerFailure: (err) => logger.warn({ err }, "fleet index worker failed; building in-process"),
    onError: (err) => logger.error({ err }, "fleet index rebuild failed; the previous index keeps answering"),
  });
  // Vehicles held by live bookings and blackouts: a quote reads a copy of the providers it asks, at most a second old;
  // bookings claim in the database.
  const holds = new HoldIndex(storage.vehicleHolds, undefined, undefined, () => clock.now());
  return {
    fleet,
    fleetIndex,
    searchAnswers: new SearchAnswerCache<Uint8Array>(fleetIndex, SEARCH_ANSWER_CACHE_BYTES),
    manageFleet: { fleet, index: fleetIndex, airports, clock, companies },
    availability: { fleet, holds, clock, newId: () => Bun.randomUUIDv7() },
    searchFleet: { index: fleetIndex, airports, gazetteer },
  };
}

export type FleetWiring = ReturnType<typeof wireFleet>;
