// Bookings, events and an announcer for the trips repositories' contract tests (both adapters, and the
// PostgreSQL-only cases).
import type { AnnouncedMessage, IntegrationLookup } from "../../../domain/delivery/ports";
import type { Booking, BookingEvent } from "../../../domain/trips/booking";
import type { ChangeAnnouncer, Decision } from "../../../domain/trips/ports";

let serial = 0;

/** A new booking with names no other test uses; transaction ids are time-ordered, as the service's are. */
export function newBooking(over: Partial<Booking> = {}): Booking {
  const n = ++serial;
  return {
    transactionId: Bun.randomUUIDv7(),
    requesterId: "REQ-CO",
    requesterResNo: `RES-${process.pid}-${n}`,
    providerId: "PROV-CO",
    providerResNo: null,
    status: "BOOKING_REQUEST",
    userid: "req-user",
    sourcePlatform: "TripSwitch",
    targetPlatform: "TripSwitch",
    submitDate: 1_800_000_000 + n,
    pickupDate: 1_800_100_000 + n,
    updatedAt: 1_800_000_000 + n,
    totalAmount: null,
    quoteValidUntil: null,
    contentHash: `hash-${n}`,
    action: "NEW",
    notes: `note ${n}`,
    trip: { reservationType: "REGULAR", passengerCount: "2", locations: { pickup: { address: "1 Main St" } }, passengers: [{ firstName: "Ann" }], fees: [] },
    changeLogs: [],
    transactionErrors: [],
    ...over,
  };
}

export function event(booking: Booking, type: BookingEvent["type"], at: number): BookingEvent {
  return { type, transactionId: booking.transactionId, actor: "requester", at, status: booking.status };
}

/** A decision that creates `booking` when none exists (answering its id), else answers the existing one's id. */
export function create(booking: Booking, at = booking.submitDate): (current: Booking | undefined) => Decision<string> {
  return (current) => (current ? { result: current.transactionId } : { result: booking.transactionId, write: { booking, events: [event(booking, "TRIP_SENT", at)] } });
}

/** A decision that appends a change log line (and an event) to the booking. */
export function appendLog(line: string, at: number, type: BookingEvent["type"] = "TRIP_UPDATED"): (current: Booking | undefined) => Decision<number> {
  return (current) => {
    if (!current) throw new Error("no such booking");
    const booking = { ...current, updatedAt: at, changeLogs: [...current.changeLogs, { timestamp: new Date(at * 1000).toISOString(), changeSource: "test", changeDesc: line }] };
    return { result: booking.changeLogs.length, write: { booking, events: [event(booking, type, at)] } };
  };
}

/**
 * Announces each event as a delivery to the provider's delivery URL and a webhook to the requester's webhook URL,
 * as far as their integrations (read synchronously) have them. A booking whose notes are DUPLICATE_ANNOUNCEMENT
 * has its last message announced twice with one event id: the second insert fails, so the change rolls back.
 */
/** Notes that make TestAnnouncer announce one event id twice. */
export const DUPLICATE_ANNOUNCEMENT = "announce twice";

export class TestAnnouncer implements ChangeAnnouncer {
  wakes = 0;

  constructor(private readonly integrations: IntegrationLookup) {}

  messages(events: BookingEvent[], booking: Booking): AnnouncedMessage[] {
    const out: AnnouncedMessage[] = [];
    const provider = this.integrations.getSync(booking.providerId);
    const requester = this.integrations.getSync(booking.requesterId);
    for (const e of events) {
      const base = { eventType: e.type, transactionId: booking.transactionId, body: JSON.stringify({ type: e.type, status: booking.status }) };
      if (provider?.deliveryUrl) out.push({ message: { ...base, eventId: `ev-${Bun.randomUUIDv7()}`, channel: "delivery", targetNetid: booking.providerId, url: provider.deliveryUrl }, at: e.at });
      if (requester?.webhookUrl) out.push({ message: { ...base, eventId: `ev-${Bun.randomUUIDv7()}`, channel: "webhook", targetNetid: booking.requesterId, url: requester.webhookUrl }, at: e.at });
      if (booking.notes === DUPLICATE_ANNOUNCEMENT && out.length > 0) out.push({ ...out[out.length - 1] });
    }
    return out;
  }

  wake(): void {
    this.wakes++;
  }
}
