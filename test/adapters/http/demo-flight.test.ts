import { afterAll, beforeAll, expect, test } from "bun:test";
import { createHarness, FAST_DELIVERY, type Harness } from "../../support/harness";
import { startReceiver } from "../../support/receiver";
import { integrate, lookup, party, sendTrip, type Party } from "../../support/trips";
import { startSandboxDispatcher } from "../../../src/services";
import { bookDemoFlight, delaysDemoFlight, DEMO_FLIGHT } from "../../../src/demo/delayed-flight";

/**
 * The demo's flight that lands late (docs/operator.md#a-flight-that-lands-late): the sandbox's dispatcher confirms the
 * demo's airport pickup, waits, then reports its flight 45 minutes late through the flight status use case — the
 * pickup moves as a party's status moves it (changeLogs, the provider's UPDATE, booking.pickup_moved) — and plays the
 * trip on. The dispatcher's pace is made short here; `npm start` waits two minutes.
 */

const FLIGHT_DELAY_MS = 600;
let h: Harness;
let platform: Party, acme: Party;
const provider = startReceiver(() => Response.json({ success: true }));
const hooks = startReceiver();
const stopDispatcher: Array<() => void> = [];

beforeAll(async () => {
  h = createHarness({
    delivery: FAST_DELIVERY,
    sandbox: { stepMs: 100, positionMs: 1100, positions: 1, flightDelayMs: FLIGHT_DELAY_MS },
    sandboxFlightDelay: delaysDemoFlight,
  });
  [platform, acme] = await Promise.all([party(h, DEMO_FLIGHT.requesterId, "CO"), party(h, DEMO_FLIGHT.providerId, "IO")]);
  await h.services.sandboxes.setSandbox(acme.netid, true);
  expect((await integrate(h, acme, { deliveryUrl: `${provider.url}/farm-in` })).status).toBe(200);
  expect((await integrate(h, platform, { webhookUrl: `${hooks.url}/hooks` })).status).toBe(200);
  h.services.worker.start();
  stopDispatcher.push(startSandboxDispatcher(h.services));
}, 60_000);

afterAll(async () => {
  for (const stop of stopDispatcher) stop();
  await h.close();
  provider.stop();
  hooks.stop();
});

/** Reads the booking as the platform until `done` holds (bounded). */
async function readUntil(id: string, done: (b: any) => boolean, timeoutMs = 20_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const b = (await lookup(h, platform, id)).body.data;
    if (done(b)) return b;
    if (Date.now() > deadline) throw new Error(`booking ${id} stayed ${b.lastStatus} (flight ${JSON.stringify(b.flight)})`);
    await Bun.sleep(50);
  }
}

test("the demo's airport pickup: the sandbox confirms it, reports BA117 45 min late, the pickup moves 45 min, the trip plays on", async () => {
  const started = Date.UTC(2027, 2, 10, 14, 2);
  const id = (await bookDemoFlight(h.services, started))!;
  // Booked once: a restart finds it.
  expect(await bookDemoFlight(h.services, started)).toBe(id);
  const booked = (await lookup(h, platform, id)).body.data;
  // Lands on the next five-minute mark two hours on (16:05Z), the pickup 45 min later.
  expect(booked.flight).toMatchObject({ airlineCode: "BA", flightNumber: "117", state: "SCHEDULED", scheduledLanding: "2027-03-10T16:05:00Z", pickupOffsetMinutes: 45 });
  expect(booked.tripPacket.locations.pickup.time).toBe("2027-03-10T16:50:00Z");

  const confirmedAt = Date.now();
  await readUntil(id, (b) => b.lastStatus === "CONFIRMED");
  const moved = await readUntil(id, (b) => b.flight?.lastMove !== undefined);
  // It waited for its flight's news, confirmed, before the move.
  expect(Date.now() - confirmedAt).toBeGreaterThanOrEqual(FLIGHT_DELAY_MS);
  expect(moved.flight).toMatchObject({
    state: "ESTIMATED",
    estimatedLanding: "2027-03-10T16:50:00Z",
    originalPickup: "2027-03-10T16:50:00Z",
    lastMove: { from: "2027-03-10T16:50:00Z", to: "2027-03-10T17:35:00Z", cause: "FLIGHT_DELAY" },
  });
  expect(moved.tripPacket.locations.pickup.time).toBe("2027-03-10T17:35:00Z");
  const logs = moved.tripPacket.changeLogs.map((c: { changeDesc: string }) => c.changeDesc);
  const line = "pickup moved by flight BA117 (estimated landing 2027-03-10T16:50:00Z): 2027-03-10T16:50:00Z → 2027-03-10T17:35:00Z (FLIGHT_DELAY, +45 min)";
  expect(logs).toContain(line);
  expect(logs.findIndex((d: string) => d.includes("CONFIRMED"))).toBeLessThan(logs.indexOf(line));

  // The provider's system is sent the UPDATE with the new time; the platform hears booking.pickup_moved.
  const deadline = Date.now() + 10_000;
  const update = () => provider.received.find((r) => r.json?.transactionId === id && r.json?.affiliateReservation?.action === "UPDATE");
  const heard = () => hooks.received.find((r) => r.json?.type === "booking.pickup_moved" && r.json?.data?.transactionId === id);
  while ((!update() || !heard()) && Date.now() < deadline) await Bun.sleep(50);
  expect(update()?.json.locations.pickup.time).toBe("2027-03-10T17:35:00Z");
  expect(heard()?.json).toMatchObject({ from: "2027-03-10T16:50:00Z", to: "2027-03-10T17:35:00Z", cause: "FLIGHT_DELAY" });

  // Then the sandbox plays the trip on, as any other.
  const closed = await readUntil(id, (b) => b.lastStatus === "CLOSE");
  expect(closed.flight.lastMove.cause).toBe("FLIGHT_DELAY");
}, 60_000);

test("another sandbox trip meeting a flight is not reported late: it runs to CLOSE with its pickup where it was", async () => {
  const body = {
    reservationType: "REGULAR",
    passengerCount: "1",
    passengers: [{ firstName: "Ada", lastName: "Lovelace" }],
    locations: {
      pickup: { locationType: "airport", address: "JFK", time: "2027-03-11T16:50:00Z", flightInfo: { airlineCode: "BA", flightNumber: "117", scheduledArrival: "2027-03-11T16:05:00Z" } },
      dropOff: { locationType: "address", address: "200 Park Ave, New York, NY 10166", lat: "40.7536", lon: "-73.9767" },
    },
    affiliateReservation: { requesterId: platform.netid, providerId: acme.netid, requesterResNo: "NOT-THE-DEMO-1", action: "NEW" },
  };
  const sent = await sendTrip(h, platform, body);
  expect(sent.status).toBe(200);
  const closed = await readUntil(sent.body.transactionId, (b) => b.lastStatus === "CLOSE");
  expect(closed.flight.lastMove).toBeUndefined();
  expect(closed.tripPacket.locations.pickup.time).toBe("2027-03-11T16:50:00Z");
}, 60_000);
