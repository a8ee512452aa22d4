import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import gnetStyle from "../../../../adapters/http/examples/sendtrip-gnet-style.json";
import { createHarness, ManualClock, type Harness } from "../../../support/harness";
import { nextResNo, party, sendTrip, type Party } from "../../../support/trips";

/**
 * Flights and the pickup that follows the flight, through HTTP (docs/flights.md#flights,
 * docs/flights.md#the-pickup-follows-the-flight): a pickup's flightInfo is checked and the booking keeps its
 * pickupOffsetMinutes; a flight status from a party moves the pickup (its wall-clock time, pickupDate, the terms'
 * instants, the vehicle hold, a changeLogs line, the provider's UPDATE, booking.pickup_moved) in one change; onto a
 * held hour it is 409 VEHICLE_UNAVAILABLE, nothing of the move kept, and both parties are warned.
 */

// 2027-08-01T00:00:00Z: every pickup below lies ahead.
const clock = new ManualClock(Date.UTC(2027, 7, 1) / 1000);
let h: Harness;
let requester: Party, provider: Party, stranger: Party;
const JFK = { lat: 40.6413, lon: -73.7781 };
const bearer = (who: Party) => ({ authorization: `Bearer ${who.jwt}` });
const passengers = [{ firstName: "Ada", lastName: "Lovelace" }];
const dropOff = { locationType: "address", address: "200 Park Ave, New York, NY", lat: "40.7536", lon: "-73.9767" };
const flightInfo = (scheduledArrival?: string) => ({ airlineCode: "BA", flightNumber: "117", ...(scheduledArrival ? { scheduledArrival } : {}) });
const pickup = (time: string, flight: Record<string, unknown> = flightInfo()) => ({ locationType: "airport", address: "JFK", time, flightInfo: flight });

/** A plain NEW (no vehicle held) from the requester to the provider. */
const newTrip = (p: Record<string, unknown>) => ({
  reservationType: "REGULAR",
  passengerCount: "2",
  passengers,
  locations: { pickup: p, dropOff },
  affiliateReservation: { requesterId: requester.netid, providerId: provider.netid, requesterResNo: nextResNo(), action: "NEW" },
});
/** The company's recent events of `type` (PostgreSQL's sequencer numbers committed events: run it first). */
async function recentEvents(who: Party, type: string) {
  const deadline = Date.now() + 5000;
  const log = h.services.storage.liveEvents as typeof h.services.storage.liveEvents & { sequence?: () => Promise<void> };
  for (;;) {
    await log.flush();
    await log.sequence?.();
    const events = await log.recent(who.netid.toLowerCase(), type, 5);
    if (events.length > 0 || Date.now() > deadline) return events;
    await Bun.sleep(50);
  }
}
const read = async (who: Party, id: string) => (await h.request("GET", `/api/reservation/${id}`, { headers: bearer(who) })).body.data;
const flightStatus = (who: Party, id: string, body: Record<string, unknown>) =>
  h.request("POST", `/api/reservation/${id}/flight-status`, { headers: bearer(who), body });

/** Books `slug` from a fresh network quote for a pickup at JFK `time` with BA117 scheduled at `landing`. */
async function bookVehicle(slug: string, time: string, landing: string) {
  const quote = await h.request("POST", "/api/quotes", {
    headers: bearer(requester),
    body: { passengerCount: "2", locations: { pickup: pickup(time, flightInfo(landing)), dropOff } },
  });
  expect(quote.status).toBe(200);
  const option = quote.body.data.options.find((o: { code: string }) => o.code === slug);
  expect(option).toBeDefined();
  const booked = await h.request("POST", `/api/quotes/${quote.body.data.quoteId}/book`, {
    headers: bearer(requester),
    body: { quoteOptionId: option.quoteOptionId, requesterResNo: nextResNo(), passengers },
  });
  expect(booked.status).toBe(200);
  return booked.body.transactionId as string;
}
const holdsOn = async (slug: string, day: string) =>
  (await h.request("GET", `/api/fleet/${slug}/schedule?from=${day}T00:00:00Z&to=${day}T23:59:59Z`, { headers: bearer(provider) })).body.data.holds.map(
    (x: { transactionId: string; from: string; to: string }) => ({ transactionId: x.transactionId, from: x.from, to: x.to }),
  );

beforeAll(async () => {
  h = createHarness({ clock });
  [requester, provider, stranger] = await Promise.all([party(h, "FL-BOOK", "CO"), party(h, "FL-OPS", "IO"), party(h, "FL-OTHER", "IO")]);
  await h.services.fleet.insertAll(
    ["fl-car"].map((slug) => ({
      slugBase: slug,
      netid: provider.netid,
      type: "SEDAN",
      name: slug,
      description: "",
      imageUrl: null,
      maxPassengers: 4,
      maxLuggage: 4,
      lat: JFK.lat,
      lon: JFK.lon,
      airports: [],
      minimumRate: "0",
      hourlyRate: "60.00",
      currency: "USD",
      active: true,
      createdAt: 0,
      updatedAt: 0,
    })),
  );
  h.services.fleetIndex.fleetChanged();
  await h.indexed();
}, 60_000);

afterAll(async () => {
  await h.close();
});

describe("a pickup's flightInfo is checked", () => {
  test("TBD, a bad airline code, a bad number, a landing after the pickup: 400 naming the member, nothing booked", async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ airlineCode: "BA", flightNumber: "TBD" }, "locations.pickup.flightInfo.flightNumber"],
      [{ airlineCode: "TBD", flightNumber: "117" }, "locations.pickup.flightInfo.airlineCode"],
      [{ airlineCode: "B", flightNumber: "117" }, "locations.pickup.flightInfo.airlineCode"],
      [{ airlineCode: "BA", flightNumber: "11711" }, "locations.pickup.flightInfo.flightNumber"],
      [{ airlineCode: "BA" }, "locations.pickup.flightInfo.flightNumber"],
      [{ airlineCode: "BA", flightNumber: "117", scheduledArrival: "tomorrow" }, "locations.pickup.flightInfo.scheduledArrival"],
      [{ airlineCode: "BA", flightNumber: "117", scheduledArrival: "2027-09-01T19:00:00" }, "locations.pickup.flightInfo.scheduledArrival"],
    ];
    for (const [flight, field] of cases) {
      const body = newTrip(pickup("2027-09-01T18:30:00", flight));
      const sent = await sendTrip(h, requester, body);
      expect({ flight, status: sent.status, fields: sent.body.errors?.map((e: { field: string }) => e.field) }).toEqual({ flight, status: 400, fields: [field] });
      const listed = await h.request("GET", `/api/reservations?requesterResNo=${body.affiliateReservation.requesterResNo}`, { headers: bearer(requester) });
      expect(listed.body.data.total).toBe(0);
    }
  });

  test("real-world bodies keep working: GNet's example (B6 1544), blank members, the number as JSON or after the airline code", async () => {
    const gnet = structuredClone(gnetStyle) as Record<string, any>;
    gnet.affiliateReservation = { ...gnet.affiliateReservation, requesterId: requester.netid, providerId: provider.netid, requesterResNo: nextResNo() };
    gnet.locations.pickup.time = "2027-09-02T21:10:00";
    const sent = await sendTrip(h, requester, gnet);
    expect(sent.status).toBe(200);
    const booked = await read(requester, sent.body.transactionId);
    expect(booked.tripPacket.locations.pickup.flightInfo).toEqual({ flightNumber: "1544", airlineCode: "B6" });
    // No scheduled landing yet: the offset is unknown until one comes.
    expect(booked.flight).toMatchObject({ airlineCode: "B6", flightNumber: "1544", state: "SCHEDULED", scheduledLanding: null, pickupOffsetMinutes: null });
    for (const flight of [{ airlineCode: "", flightNumber: "" }, { airlineCode: "b6", flightNumber: 1544 }, { airlineCode: "B6", flightNumber: "B6 1544" }, { airlineCode: "DLH", flightNumber: "400A" }]) {
      const other = await sendTrip(h, requester, newTrip(pickup("2027-09-02T21:10:00", flight)));
      expect({ flight, status: other.status }).toEqual({ flight, status: 200 });
    }
  });

  test("the booking keeps pickupOffsetMinutes = pickup − scheduled landing, both read at the airport", async () => {
    const sent = await sendTrip(h, requester, newTrip(pickup("2027-09-03T18:30:00", flightInfo("2027-09-03T17:45:00"))));
    expect(sent.status).toBe(200);
    expect((await read(requester, sent.body.transactionId)).flight).toEqual({
      airlineCode: "BA",
      flightNumber: "117",
      state: "SCHEDULED",
      scheduledLanding: "2027-09-03T21:45:00Z",
      pickupOffsetMinutes: 45,
      originalPickup: "2027-09-03T22:30:00Z",
    });
  });
});

describe("the pickup follows the flight", () => {
  test("a delay moves the pickup, its terms and its log; the provider is sent an UPDATE and both parties the event", async () => {
    await h.request("PUT", "/api/company/integration", {
      headers: bearer(provider),
      body: { deliveryUrl: "http://127.0.0.1:9/farm-in" },
    });
    const sent = await sendTrip(h, requester, newTrip(pickup("2027-09-04T18:30:00", flightInfo("2027-09-04T17:45:00"))));
    expect(sent.status).toBe(200);
    const id = sent.body.transactionId;
    const before = await read(requester, id);

    const moved = await flightStatus(requester, id, { estimatedArrival: "2027-09-04T19:05:00" });
    expect(moved.status).toBe(200);
    expect(moved.body.data).toMatchObject({
      moved: true,
      time: "2027-09-04T19:50:00",
      pickupDate: Date.UTC(2027, 8, 4, 23, 50) / 1000,
      move: { from: "2027-09-04T22:30:00Z", to: "2027-09-04T23:50:00Z", cause: "FLIGHT_DELAY" },
      warnings: [],
    });
    const after = await read(provider, id);
    expect(after.tripPacket.locations.pickup.time).toBe("2027-09-04T19:50:00");
    expect(after.pickupDate).toBe(before.pickupDate + 80 * 60);
    expect(after.flight).toMatchObject({ state: "ESTIMATED", estimatedLanding: "2027-09-04T23:05:00Z", lastMove: { cause: "FLIGHT_DELAY" } });
    // The terms are counted from the pickup: their instants move with it.
    const plus80 = (iso: string) => new Date(Date.parse(iso) + 80 * 60_000).toISOString().replace(".000Z", "Z");
    if (before.terms?.freeCancellationUntil) expect(after.terms.freeCancellationUntil).toBe(plus80(before.terms.freeCancellationUntil));
    expect(after.tripPacket.changeLogs.at(-1).changeDesc).toBe(
      "pickup moved by flight BA117 (estimated landing 2027-09-04T23:05:00Z): 2027-09-04T18:30:00 → 2027-09-04T19:50:00 (FLIGHT_DELAY, +80 min)",
    );
    const messages = await h.services.outbox.forBooking(id);
    const update = messages.find((m) => m.channel === "delivery" && m.eventType === "trip.update");
    expect(JSON.parse(update!.body)).toMatchObject({ affiliateReservation: { action: "UPDATE" }, locations: { pickup: { time: "2027-09-04T19:50:00" } } });
    const events = await recentEvents(provider, "booking.pickup_moved");
    expect(JSON.parse(events[0].body)).toMatchObject({ type: "booking.pickup_moved", from: "2027-09-04T22:30:00Z", to: "2027-09-04T23:50:00Z", cause: "FLIGHT_DELAY" });
    expect(await recentEvents(requester, "booking.pickup_moved")).toHaveLength(1);

    // Landing early moves it back; the provider may report too; a status that moves nothing keeps only the news.
    const early = await flightStatus(provider, id, { actualArrival: "2027-09-04T21:30:00Z" });
    expect(early.body.data).toMatchObject({ moved: true, time: "2027-09-04T18:15:00", move: { cause: "FLIGHT_EARLY" }, flight: { state: "LANDED" } });
    const same = await flightStatus(provider, id, { actualArrival: "2027-09-04T17:30:00" });
    expect(same.body.data).toMatchObject({ moved: false, time: "2027-09-04T18:15:00" });
  });

  test("a stranger and an unknown booking get 404; a pickup without flight 409 NO_FLIGHT; one landing exactly, else 400", async () => {
    const sent = await sendTrip(h, requester, newTrip(pickup("2027-09-05T18:30:00", flightInfo("2027-09-05T17:45:00"))));
    const id = sent.body.transactionId;
    expect((await flightStatus(stranger, id, { estimatedArrival: "2027-09-05T19:00:00" })).status).toBe(404);
    expect((await flightStatus(stranger, "0194f1c2-7a1e-7c3b-9a51-2f6f4b8e1d20", { estimatedArrival: "2027-09-05T19:00:00" })).status).toBe(404);
    const both = await flightStatus(requester, id, { estimatedArrival: "2027-09-05T19:00:00", actualArrival: "2027-09-05T19:00:00" });
    expect(both.status).toBe(400);
    const garbled = await flightStatus(requester, id, { estimatedArrival: "soon" });
    expect([garbled.status, garbled.body.errors[0].field]).toEqual([400, "estimatedArrival"]);
    const plain = await sendTrip(h, requester, newTrip(pickup("2027-09-05T18:30:00", { airlineCode: "", flightNumber: "" })));
    const none = await flightStatus(requester, plain.body.transactionId, { estimatedArrival: "2027-09-05T19:00:00" });
    expect([none.status, none.body.code]).toEqual([409, "NO_FLIGHT"]);
    expect((await read(requester, id)).tripPacket.locations.pickup.time).toBe("2027-09-05T18:30:00");
  });

  test("a move to less than 15 minutes from now warns PICKUP_MOVED_SHORT_NOTICE", async () => {
    // Pickup 2027-08-01T00:40Z (20:40 at JFK the evening before); the flight lands early: the pickup is 10 min away.
    const sent = await sendTrip(h, requester, newTrip(pickup("2027-07-31T20:40:00", flightInfo("2027-07-31T20:10:00"))));
    expect(sent.status).toBe(200);
    const moved = await flightStatus(requester, sent.body.transactionId, { estimatedArrival: "2027-07-31T19:40:00" });
    expect(moved.body.data).toMatchObject({ moved: true, time: "2027-07-31T20:10:00", warnings: [{ code: "PICKUP_MOVED_SHORT_NOTICE" }] });
  });

  test("onto a held hour: 409 VEHICLE_UNAVAILABLE, the booking and both holds as they were, both parties warned", async () => {
    const mine = await bookVehicle("fl-car", "2027-09-10T08:00:00", "2027-09-10T07:30:00");
    const theirs = await bookVehicle("fl-car", "2027-09-10T11:00:00", "2027-09-10T10:30:00");
    const before = await holdsOn("fl-car", "2027-09-10");
    expect(before).toHaveLength(2);
    const was = await read(requester, mine);

    const refused = await flightStatus(requester, mine, { estimatedArrival: "2027-09-10T10:00:00" });
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({ success: false, code: "VEHICLE_UNAVAILABLE", vehicle: "fl-car" });
    const now = await read(requester, mine);
    expect({ time: now.tripPacket.locations.pickup.time, pickupDate: now.pickupDate, terms: now.terms }).toEqual({
      time: was.tripPacket.locations.pickup.time,
      pickupDate: was.pickupDate,
      terms: was.terms,
    });
    expect(await holdsOn("fl-car", "2027-09-10")).toEqual(before);
    expect(now.tripPacket.transactionErrors.at(-1).errCode).toBe("PICKUP_MOVE_VEHICLE_UNAVAILABLE");
    for (const who of [requester, provider]) {
      const warned = await recentEvents(who, "booking.pickup_move_blocked");
      expect(JSON.parse(warned[0].body)).toMatchObject({ cause: "FLIGHT_DELAY", data: { transactionId: mine } });
    }

    // To a free hour the hold moves with the pickup, in the same change.
    const ok = await flightStatus(requester, mine, { estimatedArrival: "2027-09-10T07:50:00" });
    expect(ok.status).toBe(200);
    const moved = (await holdsOn("fl-car", "2027-09-10")).find((x: { transactionId: string }) => x.transactionId === mine);
    const old = before.find((x: { transactionId: string }) => x.transactionId === mine);
    const shift = (iso: string) => new Date(Date.parse(iso) + 20 * 60_000).toISOString().replace(".000Z", "Z");
    expect(moved).toEqual({ transactionId: mine, from: shift(old.from), to: shift(old.to) });
    expect(theirs).toBeDefined();
  });
});
