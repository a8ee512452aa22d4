import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createLogger } from "../../../adapters/logging";
import { startFlightPoller } from "../../../src/services";
import { aeroFlight, startFakeAeroApi } from "../../support/fake-aeroapi";
import { createHarness, FAST_DELIVERY, ManualClock, type Harness } from "../../support/harness";
import { startReceiver } from "../../support/receiver";
import { insertFleet, integrate, lookup, nextResNo, party, sendTrip, type Party } from "../../support/trips";

/**
 * The flight-status poller through HTTP (docs/flights.md#the-flight-status-poller), against a fake AeroAPI on
 * loopback: bookings made through the API whose flight lands within the window are asked about (one question per
 * flight, within the budget per minute and once per interval), a delay moves the pickup through the same change a
 * party's status makes (the provider's UPDATE delivered), an unchanged flight sends nothing, a failing API is logged
 * without its key and moves nothing.
 */

const KEY = "aeroapi-test-key-5f2c9d1e8b7a";
// Now (the delivery worker sends what is due by the real clock); the test moves it past intervals and back-offs.
const clock = new ManualClock(Math.floor(Date.now() / 1000));
const at = (minutes: number) => `${new Date((clock.now() + minutes * 60) * 1000).toISOString().slice(0, 19)}Z`;
const plus = (iso: string, minutes: number) => `${new Date(Date.parse(iso) + minutes * 60_000).toISOString().slice(0, 19)}Z`;

const aero = startFakeAeroApi();
const farmIn = startReceiver();
const lines: string[] = [];
let h: Harness;
let requester: Party, provider: Party;

/** Books a trip meeting `ident` (`BA117`), landing `landsIn` minutes from now, the pickup 45 minutes later. */
async function bookFlight(ident: string, landsIn: number) {
  const landing = at(landsIn);
  const [, airlineCode, flightNumber] = ident.match(/^([A-Z0-9]{2})(\d+)$/)!;
  const requesterResNo = nextResNo();
  const sent = await sendTrip(h, requester, {
    reservationType: "REGULAR",
    passengerCount: "1",
    passengers: [{ firstName: "Ada", lastName: "Lovelace" }],
    locations: {
      pickup: { locationType: "airport", address: "JFK", time: plus(landing, 45), flightInfo: { airlineCode, flightNumber, scheduledArrival: landing } },
      dropOff: { locationType: "address", address: "200 Park Ave, New York, NY", lat: "40.7536", lon: "-73.9767" },
    },
    affiliateReservation: { requesterId: requester.netid, providerId: provider.netid, requesterResNo, action: "NEW" },
  });
  expect(sent.status).toBe(200);
  return { id: sent.body.transactionId as string, requesterResNo, landing, pickup: plus(landing, 45) };
}
const read = async (id: string) => (await lookup(h, requester, id)).body.data;
const updatesOf = (requesterResNo: string) =>
  farmIn.received.filter((r) => r.json?.affiliateReservation?.requesterResNo === requesterResNo && r.json?.affiliateReservation?.action === "UPDATE");
const outboxUpdates = async (id: string) => (await h.services.outbox.forBooking(id)).filter((m) => m.channel === "delivery" && m.eventType === "trip.update");
const pass = () => h.services.flightPoll!.pass();

beforeAll(async () => {
  h = createHarness({
    clock,
    delivery: FAST_DELIVERY,
    logger: createLogger("info", { write: (line: string) => void lines.push(line) } as never),
    flightStatus: { url: aero.url, apiKey: KEY, windowHours: 6, perMinute: 1000, intervalSeconds: 60, timeoutMs: 500 },
  });
  h.services.worker.start();
  [requester, provider] = await Promise.all([party(h, "FP-BOOK", "CO"), party(h, "FP-OPS", "IO")]);
  expect((await integrate(h, provider, { deliveryUrl: `${farmIn.url}/farm-in` })).status).toBe(200);
}, 60_000);

afterAll(async () => {
  await h.close();
  aero.stop();
  farmIn.stop();
});

describe("a flight that moves", () => {
  test("a delayed flight moves the pickup within 5 s: the provider receives the UPDATE, the booking says which flight moved it", async () => {
    const trip = await bookFlight("BA117", 120);
    aero.flights.set("BA117", [aeroFlight("BA117", { scheduledOn: trip.landing, estimatedOn: plus(trip.landing, 80) })]);
    const started = performance.now();
    const stop = startFlightPoller(h.services, 100);
    try {
      const deadline = started + 5000;
      while (updatesOf(trip.requesterResNo).length === 0 && performance.now() < deadline) await Bun.sleep(20);
      const elapsed = performance.now() - started;
      const [update] = updatesOf(trip.requesterResNo);
      expect(update).toBeDefined();
      expect(elapsed).toBeLessThan(5000);
      expect(update.json.locations.pickup.time).toBe(plus(trip.pickup, 80));
    } finally {
      await stop();
    }
    const booked = await read(trip.id);
    expect(booked.pickupDate).toBe(Date.parse(plus(trip.pickup, 80)) / 1000);
    expect(booked.flight).toMatchObject({ state: "ESTIMATED", estimatedLanding: plus(trip.landing, 80), lastMove: { cause: "FLIGHT_DELAY" } });
    expect(booked.tripPacket.changeLogs).toContainEqual(
      expect.objectContaining({ changeSource: "exchange:flight-status", changeDesc: expect.stringContaining("pickup moved by flight BA117") }),
    );
    // The key rides in its header, never in the URL.
    expect(aero.asked("BA117")[0].apiKey).toBe(KEY);
    expect(aero.asked("BA117")[0].url).not.toContain(KEY);
    expect(aero.asked("BA117")[0].search.get("ident_type")).toBe("designator");

    // Asked again after the interval: the same estimate, or one a few minutes off, is no news; nothing more is sent.
    clock.advance(61);
    expect(await pass()).toEqual({ asked: 1, moved: 0 });
    aero.flights.set("BA117", [aeroFlight("BA117", { scheduledOn: trip.landing, estimatedOn: plus(trip.landing, 83) })]);
    clock.advance(61);
    expect(await pass()).toEqual({ asked: 1, moved: 0 });
    expect(await outboxUpdates(trip.id)).toHaveLength(1);

    // It lands early after all: one more move (FLIGHT_EARLY), and a landed flight is asked about no more.
    const landed = aeroFlight("BA117", { scheduledOn: trip.landing, estimatedOn: plus(trip.landing, 80), actualOn: plus(trip.landing, -10) });
    aero.flights.set("BA117", [landed]);
    clock.advance(61);
    expect(await pass()).toEqual({ asked: 1, moved: 1 });
    expect(await read(trip.id)).toMatchObject({
      flight: { state: "LANDED", lastMove: { cause: "FLIGHT_EARLY" } },
      pickupDate: Date.parse(plus(trip.pickup, -10)) / 1000,
    });
    clock.advance(61);
    const before = aero.asked("BA117").length;
    await pass();
    expect(aero.asked("BA117")).toHaveLength(before);
    expect(await outboxUpdates(trip.id)).toHaveLength(2);
  });

  test("a flight on time moves nothing and sends nothing", async () => {
    const trip = await bookFlight("AA100", 90);
    aero.flights.set("AA100", [aeroFlight("AA100", { scheduledOn: trip.landing, estimatedOn: trip.landing })]);
    clock.advance(61);
    await pass();
    expect(aero.asked("AA100")).toHaveLength(1);
    const booked = await read(trip.id);
    expect(booked.tripPacket.locations.pickup.time).toBe(trip.pickup);
    expect(booked.flight.lastMove).toBeUndefined();
    expect(await outboxUpdates(trip.id)).toHaveLength(0);
  });

  test("several bookings meeting one flight: one question, each pickup moved", async () => {
    const trips = [await bookFlight("DL401", 150), await bookFlight("DL401", 150), await bookFlight("DL401", 150)];
    aero.flights.set("DL401", [aeroFlight("DL401", { scheduledOn: trips[0].landing, estimatedOn: plus(trips[0].landing, 30) })]);
    clock.advance(61);
    const done = await pass();
    expect(aero.asked("DL401")).toHaveLength(1);
    expect(done.moved).toBe(3);
    for (const trip of trips) expect((await read(trip.id)).tripPacket.locations.pickup.time).toBe(plus(trip.pickup, 30));
  });

  test("flights landing beyond the window, and bookings that ended, are not asked about", async () => {
    const late = await bookFlight("UA900", 7 * 60);
    const cancelled = await bookFlight("UA901", 60);
    const cancel = await sendTrip(h, requester, {
      affiliateReservation: { requesterId: requester.netid, providerId: provider.netid, requesterResNo: cancelled.requesterResNo, action: "CANCEL" },
    });
    expect(cancel.status).toBe(200);
    clock.advance(61);
    await pass();
    expect([aero.asked("UA900").length, aero.asked("UA901").length]).toEqual([0, 0]);
    // Once it comes within the window, it is.
    clock.advance(65 * 60);
    await pass();
    expect(aero.asked("UA900")).toHaveLength(1);
    expect((await read(late.id)).tripPacket.locations.pickup.time).toBe(late.pickup);
  });
});

describe("a move onto a held hour", () => {
  test("is refused as the route refuses it: logged, the booking warned once, not again while the flight says the same", async () => {
    await insertFleet(h, provider.netid, [{ slug: "fp-car", maxPassengers: 4, maxLuggage: 4, lat: 40.6413, lon: -73.7781, airports: [], hourlyRate: "60.00" }]);
    const dropOff = { locationType: "address", address: "200 Park Ave, New York, NY", lat: "40.7536", lon: "-73.9767" };
    const bookVehicle = async (ident: string, landsIn: number) => {
      const landing = at(landsIn);
      const [, airlineCode, flightNumber] = ident.match(/^([A-Z0-9]{2})(\d+)$/)!;
      const pickup = { locationType: "airport", address: "JFK", time: plus(landing, 30), flightInfo: { airlineCode, flightNumber, scheduledArrival: landing } };
      const auth = { authorization: `Bearer ${requester.jwt}` };
      const quote = await h.request("POST", "/api/quotes", { headers: auth, body: { passengerCount: "2", locations: { pickup, dropOff } } });
      const option = quote.body.data.options.find((o: { code: string }) => o.code === "fp-car");
      const booked = await h.request("POST", `/api/quotes/${quote.body.data.quoteId}/book`, {
        headers: auth,
        body: { quoteOptionId: option.quoteOptionId, requesterResNo: nextResNo(), passengers: [{ firstName: "Ada", lastName: "Lovelace" }] },
      });
      expect(booked.status).toBe(200);
      return { id: booked.body.transactionId as string, landing };
    };
    const mine = await bookVehicle("AF22", 120);
    await bookVehicle("AF24", 300);
    const was = await read(mine.id);
    aero.flights.set("AF22", [aeroFlight("AF22", { scheduledOn: mine.landing, estimatedOn: plus(mine.landing, 170) })]);
    clock.advance(61);
    const logged = lines.length;
    expect(await pass()).toMatchObject({ moved: 0 });
    const said = lines.slice(logged).map((l) => JSON.parse(l));
    expect(said).toContainEqual(expect.objectContaining({ msg: "flight status: a pickup could not follow its flight", transactionId: mine.id }));
    const now = await read(mine.id);
    expect({ time: now.tripPacket.locations.pickup.time, pickupDate: now.pickupDate }).toEqual({ time: was.tripPacket.locations.pickup.time, pickupDate: was.pickupDate });
    const blocked = (b: { tripPacket: { transactionErrors: Array<{ errCode: string }> } }) =>
      b.tripPacket.transactionErrors.filter((e) => e.errCode === "PICKUP_MOVE_VEHICLE_UNAVAILABLE");
    expect(blocked(now)).toHaveLength(1);
    // The booking keeps the estimate: the same answer an interval later is no news, and nobody is warned again.
    clock.advance(61);
    await pass();
    expect(aero.asked("AF22")).toHaveLength(2);
    expect(blocked(await read(mine.id))).toHaveLength(1);
  });
});

describe("a failing flight-status API", () => {
  test("down, slow, 500, a huge or a non-JSON answer: logged without the key, backed off, nothing moved", async () => {
    const trip = await bookFlight("BA178", 100);
    aero.flights.set("BA178", [aeroFlight("BA178", { scheduledOn: trip.landing, estimatedOn: plus(trip.landing, 60) })]);
    const seen = await read(trip.id);
    const failures: Array<[() => void, string]> = [
      [() => aero.down(), "connection failed"],
      [() => (aero.state.mode = "slow"), "within 500 ms"],
      [() => (aero.state.mode = "500"), "answered HTTP 500"],
      [() => (aero.state.mode = "huge"), "more than 524288 bytes"],
      [() => (aero.state.mode = "not-json"), "not JSON"],
    ];
    for (const [fail, reason] of failures) {
      fail();
      clock.advance(20 * 60);
      const logged = lines.length;
      expect(await pass()).toMatchObject({ moved: 0 });
      const said = lines.slice(logged).map((l) => JSON.parse(l));
      const warning = { level: 40, msg: "flight status: the API failed; backing off", reason: expect.stringContaining(reason) };
      expect(said).toContainEqual(expect.objectContaining(warning));
      // Backing off: the next pass asks nothing.
      const asked = aero.requests.length;
      await pass();
      expect(aero.requests.length).toBe(asked);
      aero.state.mode = "ok";
      if (reason === "connection failed") aero.up();
    }
    const now = await read(trip.id);
    expect({ time: now.tripPacket.locations.pickup.time, pickupDate: now.pickupDate, status: now.status }).toEqual({
      time: seen.tripPacket.locations.pickup.time,
      pickupDate: seen.pickupDate,
      status: seen.status,
    });
    expect(await outboxUpdates(trip.id)).toHaveLength(0);

    // Once the API answers again, after the back-off, the delay comes through.
    clock.advance(20 * 60);
    await pass();
    expect((await read(trip.id)).tripPacket.locations.pickup.time).toBe(plus(trip.pickup, 60));
    expect(lines.join("\n")).not.toContain(KEY);
  }, 30_000);
});

describe("the budget", () => {
  test("no more questions a minute than FLIGHT_STATUS_PER_MINUTE, and each flight once per interval", async () => {
    const budgeted = createHarness({
      clock,
      flightStatus: { url: aero.url, apiKey: KEY, windowHours: 6, perMinute: 2, intervalSeconds: 600, timeoutMs: 500 },
    });
    try {
      const [r, p] = await Promise.all([party(budgeted, "FP-BUDGET-R", "CO"), party(budgeted, "FP-BUDGET-P", "IO")]);
      const idents = ["LH400", "LH401", "LH402", "LH403", "LH404"];
      for (const ident of idents) {
        const landing = at(120);
        const sent = await sendTrip(budgeted, r, {
          reservationType: "REGULAR",
          passengerCount: "1",
          passengers: [{ firstName: "Ada", lastName: "Lovelace" }],
          locations: {
            pickup: {
              locationType: "airport",
              address: "JFK",
              time: plus(landing, 45),
              flightInfo: { airlineCode: "LH", flightNumber: ident.slice(2), scheduledArrival: landing },
            },
            dropOff: { locationType: "address", address: "200 Park Ave, New York, NY", lat: "40.7536", lon: "-73.9767" },
          },
          affiliateReservation: { requesterId: r.netid, providerId: p.netid, requesterResNo: nextResNo(), action: "NEW" },
        });
        expect(sent.status).toBe(200);
      }
      const count = () => aero.requests.filter((q) => idents.includes(q.ident)).length;
      await budgeted.services.flightPoll!.pass();
      await budgeted.services.flightPoll!.pass();
      expect(count()).toBe(2);
      // A minute later two more, of the flights not asked yet; the first two wait for their interval.
      clock.advance(60);
      await budgeted.services.flightPoll!.pass();
      expect(count()).toBe(4);
      expect(new Set(aero.requests.filter((q) => idents.includes(q.ident)).map((q) => q.ident)).size).toBe(4);
    } finally {
      await budgeted.close();
    }
  });
});
