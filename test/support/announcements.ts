import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createHarness, type Harness } from "./harness";
import { parties, regularTrip, sendTrip } from "./trips";
import { startBookingWriter } from "../../src/services";

async function integrate(h: Harness, netid: string, settings: { deliveryUrl?: string; webhookUrl?: string }) {
  await h.services.integrations.save(
    { netid, deliveryUrl: settings.deliveryUrl ?? null, deliveryAuth: null, luggage: "notes", webhookUrl: settings.webhookUrl ?? null, webhookSecret: null, webhookVerifiedAt: settings.webhookUrl ? 1 : null, webhookFormat: "events", acceptTripsFrom: "anyone" },
    0,
  );
}

// The same announcements whichever path commits the change: the service's own connection, or the booking writer
// (SQLite's, in test/adapters/sqlite/).
export function describeAnnouncements(path: "own connection" | "booking writer"): void {
  const dir = mkdtempSync(join(tmpdir(), "tripswitch-announce-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  describe(`a booking change announces itself in its own transaction (${path})`, () => {
    test("a NEW writes a delivery to the provider's endpoint and a webhook with the booking's state to the requester", async () => {
      const h = createHarness({ dbPath: join(dir, `${path.replace(" ", "-")}.sqlite`) });
      const writer = path === "booking writer" ? await startBookingWriter(h.services, (message) => { throw new Error(message); }) : undefined;
      if (path === "booking writer") expect(writer).toBeDefined();
      try {
        const { requester, provider } = await parties(h, "-AN");
        await integrate(h, provider.netid, { deliveryUrl: "http://127.0.0.1:9/farm-in" });
        await integrate(h, requester.netid, { webhookUrl: "http://127.0.0.1:9/hook" });
        const sent = await sendTrip(h, requester, regularTrip(requester.netid, provider.netid));
        expect(sent.status).toBe(200);
        const id = sent.body.transactionId;

        // Committed before the answer: the rows are there once sendTrip has answered.
        const messages = await h.services.outbox.forBooking(id);
        expect(messages.map((m) => [m.channel, m.eventType, m.targetNetid, m.url, m.status])).toEqual([
          ["delivery", "trip.new", provider.netid, "http://127.0.0.1:9/farm-in", "pending"],
          ["webhook", "booking.created", requester.netid, "http://127.0.0.1:9/hook", "pending"],
        ]);
        const delivery = JSON.parse(messages[0].body);
        expect(delivery.affiliateReservation).toMatchObject({ action: "NEW", requesterId: requester.netid, providerId: provider.netid });
        const webhook = JSON.parse(messages[1].body);
        expect(webhook).toMatchObject({ eventId: messages[1].eventId, type: "booking.created", data: { transactionId: id, lastStatus: "BOOKING_REQUEST" } });
      } finally {
        await h.services.trips.send.bookings.drain();
        await writer?.stop();
        await h.close();
      }
    });
  });
}
