import type { ChangeAnnouncer } from "../trips/ports";
import type { BookingEvent } from "../trips/booking";
import { bookingLiveEvents, distinctBodies } from "../events/live-events";
import type { LiveEventBudget } from "../events/store-bounds";
import { changeAnnouncer, type AnnounceDeps } from "./deliver-booking";

/** The events the service records on its own (the delivery worker), never refused for a company's bound. */
const SERVICE_EVENTS = new Set<BookingEvent["type"]>(["DELIVERED", "DELIVERY_FAILED", "DELIVERY_RETRIED", "DELIVERY_RECOVERED"]);

/**
 * What a booking change announces, in the change's own transaction: the outbox messages (a delivery to the
 * provider, a webhook to the requester), and the live events through which event streams hear of every change
 * (both parties).
 */
export function announceChanges(deps: AnnounceDeps, budget?: Pick<LiveEventBudget, "charge">): ChangeAnnouncer {
  return {
    ...changeAnnouncer(deps),
    live: (events, booking, replacedBytes = 0) => {
      const rows = bookingLiveEvents({ positions: deps.positions, newEventId: deps.newEventId }, events, booking, replacedBytes);
      // A company's change is refused (429 LIVE_EVENTS_QUOTA, nothing written) when its events, with the booking version
      // it replaces, would pass the payer's bound; what the service records itself (a delivery's outcome) is counted,
      // never refused.
      if (budget && rows.length > 0) {
        const refuse = !events.some((e) => SERVICE_EVENTS.has(e.type) || e.byExchange);
        budget.charge(rows[0].payer, distinctBodies(rows).reduce((n, r) => n + r.bytes, 0), refuse);
      }
      return rows;
    },
  };
}
