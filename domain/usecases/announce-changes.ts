import type { ChangeAnnouncer } from "../trips/ports";
import { bookingLiveEvents } from "../events/live-events";
import { changeAnnouncer, type AnnounceDeps } from "./deliver-booking";

/**
 * What a booking change announces, in the change's own transaction: the outbox messages (a delivery to the
 * provider, a webhook to the requester), and the live events through which event streams hear of every change
 * (both parties).
 */
export function announceChanges(deps: AnnounceDeps): ChangeAnnouncer {
  return {
    ...changeAnnouncer(deps),
    live: (events, booking) => bookingLiveEvents({ positions: deps.positions, newEventId: deps.newEventId }, events, booking),
  };
}
