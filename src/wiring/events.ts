import { LiveHub } from "../../adapters/events/live-hub";
import { EventIdCodec } from "../../adapters/events/event-ids";
import { followedPositions } from "../../domain/events/followed-positions";
import { ChauffeurTracking } from "../../domain/usecases/track-chauffeur";
import { ArrivalWatch } from "../../domain/tracking/arrival-watch";
import { greatCircleRoadTimes } from "../../adapters/geo/road-times";
import type { ReferenceData } from "./reference";
import { newEventId, systemClock, type Wiring } from "./context";

/** Live events: the hub that serves the event streams, and chauffeur tracking (positions and their events). */
export function wireEvents({ storage, config, clock, logger, options }: Wiring, reference: Pick<ReferenceData, "airports">) {
  const { bookings, companies, integrations, positions } = storage;
  const onLiveLogError = (err: unknown) => logger.warn({ err }, "event streams: reading the live event log failed; trying again");
  const liveHub = new LiveHub(storage.liveEvents, options.events, onLiveLogError, storage.streamRegistry, new EventIdCodec(config.jwtSecret));
  const livePositions = followedPositions(storage.liveEvents, (netid) => liveHub.follows(netid));
  const nowMs = clock === systemClock ? () => Date.now() : () => clock.now() * 1000;
  // The arrival and the ETA from positions (docs/flights.md#arrival): the road's time is the great circle's by default.
  const arrival = new ArrivalWatch({ bookings, integrations, airports: reference.airports, roadTimes: greatCircleRoadTimes, nowMs });
  const tracking = new ChauffeurTracking({ bookings, companies, integrations, positions, liveEvents: livePositions, newEventId, nowMs, arrival });
  return { liveHub, positions, tracking };
}
