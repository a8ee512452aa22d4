import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { randomBytes } from "node:crypto";
import { createHarness, ManualClock, type Harness } from "../../../support/harness";
import { bearer, bookQuoted, jfkPickup, jfkSedans, jfkTrip, PARK_AVE, scheduleOn } from "../../../support/jfk";
import { party, sendTrip, type Party } from "../../../support/trips";

/**
 * Holds follow the trip, through HTTP (docs/availability.md#an-update-moves-the-hold,
 * docs/availability.md#a-held-vehicle-cannot-be-deleted): a requester's UPDATE that moves the pickup or the duration
 * moves the booking's hold in its own transaction — onto a held hour it is 409 VEHICLE_UNAVAILABLE and the booking
 * stays as it was — and a vehicle a live booking holds cannot be deleted (409 VEHICLES_HELD).
 */

const clock = new ManualClock(Math.floor(Date.now() / 1000));
let h: Harness;
let first: Party, second: Party, third: Party, ops: Party;

const pickup = jfkPickup;
const dropOff = PARK_AVE;
const trip = (time: string) => jfkTrip(time);
let resNo = 0;

/** Books `slug` for `who` at `time` (local JFK time) from a fresh network quote; the answer. */
async function bookVehicle(who: Party, slug: string, time: string) {
  const quote = await h.request("POST", "/api/quotes", { headers: bearer(who), body: trip(time) });
  expect(quote.status).toBe(200);
  const option = quote.body.data.options.find((o: { code: string }) => o.code === slug);
  if (!option) return { status: 0, body: { code: "NOT_OFFERED" } } as const;
  return bookQuoted(h, who, quote.body.data.quoteId, option.quoteOptionId, `HM-${++resNo}`);
}
const update = (who: Party, transactionId: string, body: Record<string, unknown>) =>
  sendTrip(h, who, { ...body, transactionId, affiliateReservation: { requesterId: who.netid, action: "UPDATE" } });
const holdsOn = async (slug: string, day: string) =>
  (await scheduleOn(h, ops, slug, day)).body.data.holds.map(
    (x: { transactionId: string; from: string; to: string }) => ({ transactionId: x.transactionId, from: x.from, to: x.to }),
  );

beforeAll(async () => {
  h = createHarness({ clock });
  [first, second, third, ops] = await Promise.all([party(h, "HM-ONE", "CO"), party(h, "HM-TWO", "CO"), party(h, "HM-THREE", "CO"), party(h, "HM-OPS", "IO")]);
  await jfkSedans(h, ops.netid, ["hm-car", "hm-del", "hm-free"], () => "60.00");
  h.services.fleetIndex.fleetChanged();
  await h.indexed();
}, 60_000);

afterAll(async () => {
  await h.close();
});

describe("an UPDATE moves the booking's hold", () => {
  test("onto a held hour: 409 VEHICLE_UNAVAILABLE, the booking and both holds as they were", async () => {
    const mine = await bookVehicle(first, "hm-car", "2027-09-01T08:00:00");
    const theirs = await bookVehicle(second, "hm-car", "2027-09-01T14:00:00");
    expect([mine.status, theirs.status]).toEqual([200, 200]);
    const before = await holdsOn("hm-car", "2027-09-01");
    expect(before).toEqual([
      { transactionId: mine.body.transactionId, from: "2027-09-01T12:00:00Z", to: "2027-09-01T13:30:00Z" },
      { transactionId: theirs.body.transactionId, from: "2027-09-01T18:00:00Z", to: "2027-09-01T19:30:00Z" },
    ]);
    const read = async () => (await h.request("GET", `/api/reservation/${mine.body.transactionId}`, { headers: bearer(first) })).body.data.tripPacket;
    const was = await read();

    const moved = await update(first, mine.body.transactionId, { locations: { pickup: pickup("2027-09-01T14:30:00"), dropOff } });
    expect(moved.status).toBe(409);
    expect(moved.body).toMatchObject({ success: false, code: "VEHICLE_UNAVAILABLE", vehicle: "hm-car" });
    // A longer hire running into the other booking: the same.
    const longer = await update(first, mine.body.transactionId, { totalTripDuration: "420" });
    expect(longer.status).toBe(409);
    expect(longer.body.code).toBe("VEHICLE_UNAVAILABLE");
    const now = await read();
    expect({ time: now.locations.pickup.time, total: now.totalAmount, logs: now.changeLogs.length }).toEqual({
      time: was.locations.pickup.time,
      total: was.totalAmount,
      logs: was.changeLogs.length,
    });
    expect(await holdsOn("hm-car", "2027-09-01")).toEqual(before);
  });

  test("to a free hour: the hold moves with it, the old hour is free for others, the new one is not", async () => {
    const mine = await bookVehicle(first, "hm-car", "2027-10-01T08:00:00");
    expect(mine.status).toBe(200);
    const moved = await update(first, mine.body.transactionId, { locations: { pickup: pickup("2027-10-01T16:00:00"), dropOff } });
    expect(moved.status).toBe(200);
    expect(await holdsOn("hm-car", "2027-10-01")).toEqual([
      { transactionId: mine.body.transactionId, from: "2027-10-01T20:00:00Z", to: "2027-10-01T21:30:00Z" },
    ]);
    // The hour it left is free; the hour it took is not (quotes read the moved hold at once).
    const late = await bookVehicle(third, "hm-car", "2027-10-01T16:30:00");
    expect(late.body.code).toBe("NOT_OFFERED");
    expect((await bookVehicle(second, "hm-car", "2027-10-01T08:00:00")).status).toBe(200);
    // A longer booked duration stretches the hold (120 min + 30 min turnaround).
    const longer = await update(first, mine.body.transactionId, { totalTripDuration: "120" });
    expect(longer.status).toBe(200);
    expect((await holdsOn("hm-car", "2027-10-01")).find((x: { transactionId: string }) => x.transactionId === mine.body.transactionId)).toEqual({
      transactionId: mine.body.transactionId,
      from: "2027-10-01T20:00:00Z",
      to: "2027-10-01T22:30:00Z",
    });
  });
});

describe("a refused move keeps nothing of itself (docs/postgres.md#a-refused-change-writes-nothing)", () => {
  test("UPDATEs of a large booking onto a held hour, 409 VEHICLE_UNAVAILABLE, do not grow the bookings table", async () => {
    const mine = await bookVehicle(first, "hm-car", "2027-12-01T08:00:00");
    const theirs = await bookVehicle(second, "hm-car", "2027-12-01T14:00:00");
    expect([mine.status, theirs.status]).toEqual([200, 200]);
    // Random text: nothing for PostgreSQL to compress, so a row version written takes its size until VACUUM.
    const bulk = () => randomBytes(15_000).toString("base64");
    const before = await h.tableBytes("bookings");
    for (let i = 0; i < 5; i++) {
      const moved = await update(first, mine.body.transactionId, { locations: { pickup: pickup("2027-12-01T14:30:00"), dropOff }, bulk: bulk() });
      expect({ status: moved.status, code: moved.body.code }).toEqual({ status: 409, code: "VEHICLE_UNAVAILABLE" });
    }
    expect(await h.tableBytes("bookings")).toBe(before);
  });
});

describe("a held vehicle cannot be deleted", () => {
  test("DELETE /api/fleet/{slug} while a live booking holds it: 409 VEHICLES_HELD, nothing deleted; once cancelled it goes", async () => {
    const booked = await bookVehicle(first, "hm-del", "2027-11-01T08:00:00");
    expect(booked.status).toBe(200);
    const refused = await h.request("DELETE", "/api/fleet/hm-del", { headers: bearer(ops) });
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({ success: false, code: "VEHICLES_HELD", vehicles: [{ slug: "hm-del", transactionId: booked.body.transactionId }] });
    expect((await h.request("GET", "/api/fleet/hm-del", { headers: bearer(ops) })).status).toBe(200);
    expect(await holdsOn("hm-del", "2027-11-01")).toHaveLength(1);
    const cancel = await h.request("POST", `/Platform.svc/cancelTripByTransactionId/${booked.body.transactionId}/V1`, { headers: { token: first.token } });
    expect(cancel.status).toBe(200);
    expect((await h.request("DELETE", "/api/fleet/hm-del", { headers: bearer(ops) })).status).toBe(200);
    expect((await h.request("GET", "/api/fleet/hm-del", { headers: bearer(ops) })).status).toBe(404);
    expect((await h.request("DELETE", "/api/fleet/hm-free", { headers: bearer(ops) })).status).toBe(200);
  });
});
