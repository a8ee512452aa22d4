import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createHarness, ManualClock, type Harness } from "../../../support/harness";
import { insertFleet, parties, quoteTrip, regularTrip, sendTrip, type Party } from "../../../support/trips";

type Json = Record<string, any>;

// Starts at the real time: core JWTs are verified against the real clock.
const clock = new ManualClock(Math.floor(Date.now() / 1000));
let h: Harness;
let requester: Party, provider: Party;

/** The wall-clock time (no offset) that UTC shows `hours` from now: `YYYY-MM-DDTHH:mm:ss`. */
const utcWallClock = (hours: number) => new Date((clock.now() + hours * 3600) * 1000).toISOString().slice(0, 19);
const airportPickup = (code: string, time: string) => ({ locationType: "airport", address: code, time });

function book(code: string, time: string, over: Json = {}) {
  return sendTrip(h, requester, regularTrip(requester.netid, provider.netid, { locations: { pickup: airportPickup(code, time) }, ...over }));
}

function update(transactionId: string, pickup: Json) {
  return sendTrip(h, requester, { locations: { pickup }, transactionId, affiliateReservation: { requesterId: requester.netid, providerId: provider.netid, action: "UPDATE" } });
}

beforeAll(async () => {
  h = createHarness({ clock });
  ({ requester, provider } = await parties(h));
  await insertFleet(h, provider.netid, [{ slug: "acme-jfk", maxPassengers: 8, maxLuggage: 8, lat: 40.6398, lon: -73.7787, airports: ["JFK"] }]);
});

afterAll(async () => {
  await h.close();
});

describe("a pickup time is judged in the pickup place's own time zone", () => {
  // Tokyo is UTC+9, New York UTC−5/−4, Honolulu UTC−10: one wall-clock time is a different instant in each.
  test("a wall-clock time already past in Tokyo but not in New York: NEW at NRT is 400 PICKUP_IN_PAST, at JFK 200", async () => {
    const wall = utcWallClock(2); // Tokyo: 7 h ago; New York: 6–7 h ahead.
    const tokyo = await book("NRT", wall);
    expect(tokyo.status).toBe(400);
    expect(tokyo.body).toMatchObject({ success: false, code: "PICKUP_IN_PAST", errors: [{ field: "locations.pickup.time" }] });
    const newYork = await book("JFK", wall);
    expect(newYork.status).toBe(200);
    expect(newYork.body.status).toBe("BOOKING_REQUEST");
  });

  test("the reverse order of zones: a time already past in New York but not in Honolulu", async () => {
    const wall = utcWallClock(-7); // New York: 2–3 h ago; Honolulu: 3 h ahead.
    const newYork = await book("JFK", wall);
    expect(newYork.status).toBe(400);
    expect(newYork.body.code).toBe("PICKUP_IN_PAST");
    expect((await book("HNL", wall)).status).toBe(200);
  });

  test("an offset in the time wins over the zone; up to 15 minutes ago is still taken, a QUOTE is judged the same", async () => {
    const at = (seconds: number) => new Date((clock.now() + seconds) * 1000).toISOString().slice(0, 19) + "Z";
    expect((await book("NRT", at(-14 * 60))).status).toBe(200);
    expect((await book("NRT", at(-16 * 60))).body.code).toBe("PICKUP_IN_PAST");
    const quote = await sendTrip(h, requester, quoteTrip(requester.netid, provider.netid, { locations: { pickup: airportPickup("JFK", at(-3600)) } }));
    expect(quote.status).toBe(400);
    expect(quote.body.code).toBe("PICKUP_IN_PAST");
  });

  test("UPDATE: moving the pickup into the past (in its zone) is 400; an UPDATE that leaves it alone is not refused later", async () => {
    const made = await book("JFK", utcWallClock(30));
    expect(made.status).toBe(200);
    const id = made.body.transactionId;
    const past = await update(id, airportPickup("JFK", utcWallClock(-7)));
    expect(past.status).toBe(400);
    expect(past.body).toMatchObject({ code: "PICKUP_IN_PAST", errors: [{ field: "locations.pickup.time" }] });
    // The same wall-clock time at Honolulu is still ahead: allowed.
    expect((await update(id, airportPickup("HNL", utcWallClock(-7)))).status).toBe(200);
    // Tokyo: the time two hours ahead in UTC is long past there.
    expect((await update(id, airportPickup("NRT", utcWallClock(2)))).body.code).toBe("PICKUP_IN_PAST");
    // Time passes beyond the pickup: an UPDATE of something else (the pickup resent unchanged) still goes through.
    clock.advance(24 * 3600);
    const notes = await sendTrip(h, requester, { specialInstructions: "Child seat", locations: { pickup: airportPickup("HNL", utcWallClock(-31)) }, transactionId: id, affiliateReservation: { requesterId: requester.netid, providerId: provider.netid, action: "UPDATE" } });
    expect(notes.status).toBe(200);
    clock.advance(-24 * 3600);
  });

  test("more than two years ahead: 400 PICKUP_TOO_FAR_AHEAD for a NEW and for an UPDATE", async () => {
    const far = utcWallClock(3 * 365 * 24);
    const res = await book("JFK", far);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ success: false, code: "PICKUP_TOO_FAR_AHEAD", errors: [{ field: "locations.pickup.time" }] });
    expect((await book("JFK", utcWallClock(365 * 24))).status).toBe(200);
    const made = await book("JFK", utcWallClock(48));
    expect((await update(made.body.transactionId, airportPickup("JFK", far))).body.code).toBe("PICKUP_TOO_FAR_AHEAD");
  });

  test("a NEW repeated after its pickup passed answers as before (idempotent), it is not refused", async () => {
    const body = regularTrip(requester.netid, provider.netid, { locations: { pickup: airportPickup("JFK", utcWallClock(1)) } });
    const first = await sendTrip(h, requester, body);
    expect(first.status).toBe(200);
    clock.advance(6 * 3600);
    const again = await sendTrip(h, requester, body);
    clock.advance(-6 * 3600);
    expect(again.status).toBe(200);
    expect(again.body.transactionId).toBe(first.body.transactionId);
  });
});
