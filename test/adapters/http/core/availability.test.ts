import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createHarness, ManualClock, type Harness } from "../../../support/harness";
import { party, sendTrip, type Party } from "../../../support/trips";

/**
 * Availability through HTTP (docs/availability.md, docs/availability.md#booking-a-quoted-vehicle-that-became-busy): bookings made from quote options hold their vehicle, blackouts block
 * one, quotes of both kinds leave held vehicles out, a held vehicle cannot be booked, and of racing bookings one wins.
 */

const clock = new ManualClock(Math.floor(Date.now() / 1000));
let h: Harness;
let maker: Party, other: Party, av: Party, notice: Party;
const JFK = { lat: 40.6413, lon: -73.7781 };

async function fleet(netid: string, cars: Array<{ slug: string; hourly: string }>) {
  await h.services.fleet.insertAll(
    cars.map((c) => ({
      slugBase: c.slug,
      netid,
      type: "SEDAN",
      name: c.slug,
      description: "",
      imageUrl: null,
      maxPassengers: 4,
      maxLuggage: 4,
      lat: JFK.lat,
      lon: JFK.lon,
      airports: [],
      minimumRate: "0",
      hourlyRate: c.hourly,
      currency: "USD",
      active: true,
      createdAt: 0,
      updatedAt: 0,
    })),
  );
}

const bearer = (who: Party) => ({ authorization: `Bearer ${who.jwt}` });
const integrate = (who: Party, body: unknown) => h.request("PUT", "/api/company/integration", { headers: bearer(who), body });
const trip = (time: string, over: Record<string, unknown> = {}) => ({
  passengerCount: "2",
  locations: {
    pickup: { locationType: "airport", address: "JFK", time },
    dropOff: { locationType: "address", address: "200 Park Ave, New York, NY", lat: "40.7536", lon: "-73.9767" },
  },
  ...over,
});
const quote = (body: unknown, who: Party = maker) => h.request("POST", "/api/quotes", { headers: bearer(who), body });
let resNo = 0;
const book = (quoteId: string, quoteOptionId: string) =>
  h.request("POST", `/api/quotes/${quoteId}/book`, {
    headers: bearer(maker),
    body: { quoteOptionId, requesterResNo: `AV-${++resNo}`, passengers: [{ firstName: "Ada", lastName: "Lovelace" }] },
  });
const codes = (data: { options: Array<{ code: string }> }) => data.options.map((o) => o.code);

beforeAll(async () => {
  h = createHarness({ clock });
  [maker, other, av, notice] = await Promise.all([party(h, "AV-BOOK", "CO"), party(h, "AV-OTHER", "IO"), party(h, "AV-OPS", "IO"), party(h, "AV-NOTICE", "IO")]);
  await fleet(av.netid, [
    { slug: "av-1", hourly: "50.00" },
    { slug: "av-2", hourly: "60.00" },
    { slug: "av-3", hourly: "70.00" },
  ]);
  await fleet(notice.netid, [{ slug: "notice-1", hourly: "40.00" }]);
  await fleet(other.netid, [{ slug: "other-1", hourly: "80.00" }]);
  h.services.fleetIndex.fleetChanged();
  await h.indexed();
}, 60_000);

afterAll(async () => {
  await h.close();
});

describe("integration settings", () => {
  test("turnaroundMinutes and minimumNoticeMinutes: defaults, ranges, 400 naming each field, nothing saved", async () => {
    const got = await h.request("GET", "/api/company/integration", { headers: bearer(av) });
    expect(got.body.data).toMatchObject({ turnaroundMinutes: 30, minimumNoticeMinutes: 0 });
    const bad = await integrate(av, { turnaroundMinutes: 721, minimumNoticeMinutes: -1 });
    expect(bad.status).toBe(400);
    expect(bad.body.errors.map((e: { field: string }) => e.field).sort()).toEqual(["minimumNoticeMinutes", "turnaroundMinutes"]);
    const again = await h.request("GET", "/api/company/integration", { headers: bearer(av) });
    expect(again.body.data).toMatchObject({ turnaroundMinutes: 30, minimumNoticeMinutes: 0 });
    const ok = await integrate(notice, { minimumNoticeMinutes: 10_080, turnaroundMinutes: 0 });
    expect(ok.status).toBe(200);
    expect(ok.body.data).toMatchObject({ turnaroundMinutes: 0, minimumNoticeMinutes: 10_080 });
  });

  test("a pickup sooner than a provider's minimum notice leaves it out: SHORT_NOTICE", async () => {
    const soon = new Date((clock.now() + 3 * 86_400) * 1000).toISOString().slice(0, 19);
    const res = await quote(trip(soon));
    expect(res.status).toBe(200);
    expect(codes(res.body.data)).not.toContain("notice-1");
    expect(res.body.data.warnings).toContainEqual(expect.objectContaining({ code: "SHORT_NOTICE", count: 1 }));
    const single = await sendTrip(h, maker, {
      reservationType: "QUOTE",
      ...trip(soon),
      passengers: [{ firstName: "Ada", lastName: "Lovelace" }],
      affiliateReservation: { requesterId: maker.netid, requesterResNo: "AV-NOTICE-Q", providerId: notice.netid, action: "NEW" },
    });
    expect(single.status).toBe(200);
    expect(single.body.fees).toEqual([]);
    expect(single.body.warnings).toContainEqual(expect.objectContaining({ code: "SHORT_NOTICE" }));
  });
});

describe("blackouts and the schedule", () => {
  test("bad blackouts and schedule windows are 400 naming each field; another company's vehicle is 404", async () => {
    const bad = await h.request("POST", "/api/fleet/av-1/blackouts", { headers: bearer(av), body: { from: "tomorrow", to: 5, reason: "x".repeat(501) } });
    expect(bad.status).toBe(400);
    expect(bad.body.errors.map((e: { field: string }) => e.field).sort()).toEqual(["from", "reason", "to"]);
    const backwards = await h.request("POST", "/api/fleet/av-1/blackouts", { headers: bearer(av), body: { from: "2030-01-02T00:00:00Z", to: "2030-01-01T00:00:00Z" } });
    expect(backwards.status).toBe(400);
    expect(backwards.body.errors[0].field).toBe("to");
    expect((await h.request("GET", "/api/fleet/av-1/blackouts", { headers: bearer(av) })).body.data).toEqual([]);
    const schedule = await h.request("GET", "/api/fleet/av-1/schedule?from=soon", { headers: bearer(av) });
    expect(schedule.status).toBe(400);
    expect(schedule.body.errors.map((e: { field: string }) => e.field).sort()).toEqual(["from", "to"]);
    for (const [method, path] of [
      ["POST", "/api/fleet/av-1/blackouts"],
      ["GET", "/api/fleet/av-1/blackouts"],
      ["GET", "/api/fleet/av-1/schedule?from=2030-01-01T00:00:00Z&to=2030-01-02T00:00:00Z"],
      ["DELETE", "/api/fleet/av-1/blackouts/nope"],
    ] as const) {
      const res = await h.request(method, path, { headers: bearer(other), body: method === "POST" ? { from: "2030-01-01T00:00:00Z", to: "2030-01-02T00:00:00Z" } : undefined });
      expect(res.status).toBe(404);
    }
  });

  test("a blackout leaves the vehicle out of quotes (VEHICLES_BUSY) and shows in its schedule until removed", async () => {
    const made = await h.request("POST", "/api/fleet/av-3/blackouts", {
      headers: bearer(av),
      body: { from: "2027-04-01T00:00:00Z", to: "2027-04-02T00:00:00Z", reason: "Service" },
    });
    expect(made.status).toBe(201);
    expect(made.body.data).toMatchObject({ kind: "BLACKOUT", from: "2027-04-01T00:00:00Z", to: "2027-04-02T00:00:00Z", reason: "Service" });
    const res = await quote(trip("2027-04-01T08:00:00"));
    expect(codes(res.body.data)).toEqual(["notice-1", "av-1", "av-2", "other-1"]);
    expect(res.body.data.warnings).toContainEqual(expect.objectContaining({ code: "VEHICLES_BUSY", count: 1 }));
    const sched = await h.request("GET", "/api/fleet/av-3/schedule?from=2027-04-01T00:00:00Z&to=2027-04-08T00:00:00Z", { headers: bearer(av) });
    expect(sched.body.data.holds).toEqual([made.body.data]);
    expect((await h.request("GET", "/api/fleet/av-3/blackouts", { headers: bearer(av) })).body.data).toEqual([made.body.data]);
    expect((await h.request("DELETE", `/api/fleet/av-3/blackouts/${made.body.data.id}`, { headers: bearer(av) })).status).toBe(200);
    expect((await h.request("DELETE", `/api/fleet/av-3/blackouts/${made.body.data.id}`, { headers: bearer(av) })).status).toBe(404);
    expect(codes((await quote(trip("2027-04-01T08:00:00"))).body.data)).toContain("av-3");
  });
});

describe("booking holds the vehicle", () => {
  test("a booked option holds its vehicle: later quotes leave it out, booking it again is 409 VEHICLE_UNAVAILABLE, a cancel frees it", async () => {
    const first = (await quote(trip("2027-05-01T08:00:00"))).body.data;
    const second = (await quote(trip("2027-05-01T08:30:00"))).body.data;
    const booked = await book(first.quoteId, `${av.netid}:av-1`);
    expect(booked.status).toBe(200);
    const sched = await h.request("GET", "/api/fleet/av-1/schedule?from=2027-05-01T00:00:00Z&to=2027-05-02T00:00:00Z", { headers: bearer(av) });
    expect(sched.body.data.holds).toHaveLength(1);
    expect(sched.body.data.holds[0]).toMatchObject({ kind: "BOOKING", transactionId: booked.body.transactionId, from: "2027-05-01T12:00:00Z" });
    // 1 h trip (rounded up) + 30 min turnaround.
    expect(sched.body.data.holds[0].to).toBe("2027-05-01T13:30:00Z");

    const before = await h.count("bookings");
    const refused = await book(second.quoteId, `${av.netid}:av-1`);
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({ success: false, code: "VEHICLE_UNAVAILABLE" });
    expect(await h.count("bookings")).toBe(before);

    const busy = (await quote(trip("2027-05-01T09:00:00"))).body.data;
    expect(codes(busy)).not.toContain("av-1");
    expect(busy.warnings).toContainEqual(expect.objectContaining({ code: "VEHICLES_BUSY", count: 1 }));
    // Outside the hold (after the turnaround): offered again.
    expect(codes((await quote(trip("2027-05-01T10:00:00"))).body.data)).toContain("av-1");

    const cancel = await h.request("POST", `/Platform.svc/cancelTripByTransactionId/${booked.body.transactionId}/V1`, { headers: { token: maker.token } });
    expect(cancel.status).toBe(200);
    await Bun.sleep(1100);
    expect(codes((await quote(trip("2027-05-01T09:00:00"))).body.data)).toContain("av-1");
  });

  test("a QUOTE converted into a booking holds the chosen vehicle", async () => {
    const requesterResNo = "AV-CONVERT";
    const q = {
      reservationType: "QUOTE",
      ...trip("2027-06-01T08:00:00"),
      passengers: [{ firstName: "Ada", lastName: "Lovelace" }],
      affiliateReservation: { requesterId: maker.netid, requesterResNo, providerId: av.netid, action: "NEW" },
    };
    const quoted = await sendTrip(h, maker, q);
    expect(quoted.status).toBe(200);
    const converted = await sendTrip(h, maker, { ...q, reservationType: "REGULAR", fees: [{ code: "av-2" }] });
    expect(converted.status).toBe(200);
    const sched = await h.request("GET", "/api/fleet/av-2/schedule?from=2027-06-01T00:00:00Z&to=2027-06-02T00:00:00Z", { headers: bearer(av) });
    expect(sched.body.data.holds).toEqual([expect.objectContaining({ kind: "BOOKING", transactionId: quoted.body.transactionId })]);
  });

  test("of bookings racing for one vehicle and hour, exactly one wins", async () => {
    const quotes = await Promise.all([0, 1, 2, 3, 4, 5].map(() => quote(trip("2027-07-01T08:00:00"))));
    const before = await h.count("bookings");
    const answers = await Promise.all(quotes.map((q) => book(q.body.data.quoteId, `${av.netid}:av-3`)));
    expect(answers.map((a) => a.status).sort()).toEqual([200, 409, 409, 409, 409, 409]);
    expect(await h.count("bookings")).toBe(before + 1);
  });
});
