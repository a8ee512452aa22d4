import { beforeAll, describe, expect, test } from "bun:test";
import { createHarness, type Harness } from "../../../support/harness";
import { integrate, lookup, parties, pickupIn, providerUpdate, quoteTrip, regularTrip, sendTrip, soonTrip, type Party } from "../../../support/trips";

let h: Harness;
let requester: Party, provider: Party, stranger: Party;

beforeAll(async () => {
  h = createHarness();
  ({ requester, provider, stranger } = await parties(h));
  // No free waiting away from airports: a NO_SHOW of a street pickup already past may be sent at once
  // (docs/flights.md#waiting-and-no-show).
  expect((await integrate(h, provider, { policies: { freeWaitingMinutes: { other: 0 } } })).status).toBe(200);
});

/** A street pickup 10 minutes ago: a NO_SHOW is no longer too early. */
const pastStreetTrip = () =>
  soonTrip(requester.netid, provider.netid, {
    locations: { pickup: { locationType: "address", address: "20 W 34th St", lat: "40.7484", lon: "-73.9857", time: pickupIn(-1 / 6) } },
  });

/** A fresh booking picking up soon, moved by the provider along `path` (each step must succeed). */
async function bookingAt(path: string[], body = soonTrip(requester.netid, provider.netid)): Promise<string> {
  const sent = await sendTrip(h, requester, body);
  const id = sent.body.transactionId as string;
  for (const status of path) {
    const res = await providerUpdate(h, provider, id, { status });
    if (res.status !== 200) throw new Error(`${status}: ${res.status} ${res.text}`);
  }
  return id;
}

const statusOf = async (id: string) => (await lookup(h, requester, id)).body.data.lastStatus;

describe("provider status updates", () => {
  // Every allowed move of the lifecycle that a provider makes, each from a booking brought to its start state.
  const ROUTES: Array<[string[], string]> = [
    [[], "PENDING"],
    [[], "CONFIRMED"],
    [[], "REJECT"],
    [[], "FAILED"],
    [["PENDING"], "CONFIRMED"],
    [["PENDING"], "REJECT"],
    [["CONFIRMED"], "ACKNOWLEDGED"],
    [["CONFIRMED"], "ASSIGNED"],
    [["CONFIRMED", "ACKNOWLEDGED"], "ASSIGNED"],
    [["CONFIRMED", "ASSIGNED"], "ACKNOWLEDGED"],
    [["CONFIRMED", "ASSIGNED"], "EN_ROUTE"],
    [["CONFIRMED", "ASSIGNED", "EN_ROUTE"], "ON_LOCATION"],
    [["CONFIRMED", "ASSIGNED", "EN_ROUTE", "ON_LOCATION"], "PASSENGER_ON_BOARD"],
    [["CONFIRMED", "ASSIGNED", "EN_ROUTE", "ON_LOCATION"], "NO_SHOW"],
    [["CONFIRMED", "ASSIGNED", "EN_ROUTE", "ON_LOCATION", "PASSENGER_ON_BOARD"], "STOP"],
    [["CONFIRMED", "ASSIGNED", "EN_ROUTE", "ON_LOCATION", "PASSENGER_ON_BOARD"], "COMPLETE"],
    [["CONFIRMED", "ASSIGNED", "EN_ROUTE", "ON_LOCATION", "PASSENGER_ON_BOARD", "STOP"], "STOP"],
    [["CONFIRMED", "ASSIGNED", "EN_ROUTE", "ON_LOCATION", "PASSENGER_ON_BOARD", "STOP"], "PASSENGER_ON_BOARD"],
    [["CONFIRMED", "ASSIGNED", "EN_ROUTE", "ON_LOCATION", "PASSENGER_ON_BOARD", "STOP"], "COMPLETE"],
    [["CONFIRMED", "ASSIGNED", "EN_ROUTE", "ON_LOCATION", "PASSENGER_ON_BOARD", "COMPLETE"], "CLOSE"],
    [["CONFIRMED", "ASSIGNED", "EN_ROUTE", "ON_LOCATION"], "CANCEL"],
  ];

  test("each allowed move answers \"OK\" (a JSON string), changes the status and logs it", async () => {
    for (const [path, to] of ROUTES) {
      const id = await bookingAt(path, to === "NO_SHOW" ? pastStreetTrip() : undefined);
      const from = path.at(-1) ?? "BOOKING_REQUEST";
      const res = await providerUpdate(h, provider, id, { status: to });
      expect({ path, to, status: res.status, text: res.text }).toEqual({ path, to, status: 200, text: '"OK"' });
      expect(res.headers.get("content-type")).toContain("application/json");
      const got = (await lookup(h, requester, id)).body.data;
      expect(got.lastStatus).toBe(to);
      expect(got.tripPacket.status).toBe(to);
      expect(got.tripPacket.affiliateReservation.status).toBe(to);
      expect(got.tripPacket.changeLogs.at(-1)).toEqual({ timestamp: expect.any(String), changeSource: `provider:${provider.netid}`, changeDesc: `status ${from} → ${to}` });
    }
  });

  test("forbidden moves are 409 INVALID_TRANSITION listing the allowed next states, and change nothing", async () => {
    const SAMPLE: Array<[string[], string, string[]]> = [
      [[], "QUOTE", ["PENDING", "CONFIRMED", "REJECT", "FAILED", "CANCEL", "ASSIGNED", "EN_ROUTE", "ON_LOCATION", "PASSENGER_ON_BOARD", "COMPLETE", "CLOSE"]],
      [["CONFIRMED"], "PENDING", ["ACKNOWLEDGED", "ASSIGNED", "CANCEL", "EN_ROUTE", "ON_LOCATION", "PASSENGER_ON_BOARD", "COMPLETE", "CLOSE"]],
      [["CONFIRMED", "ASSIGNED", "EN_ROUTE"], "ASSIGNED", ["ON_LOCATION", "CANCEL", "PASSENGER_ON_BOARD", "COMPLETE", "CLOSE"]],
      [["CONFIRMED", "ASSIGNED", "EN_ROUTE", "ON_LOCATION"], "EN_ROUTE", ["PASSENGER_ON_BOARD", "NO_SHOW", "CANCEL", "COMPLETE", "CLOSE"]],
      [["REJECT"], "CONFIRMED", []],
      [["CONFIRMED", "ASSIGNED", "EN_ROUTE", "ON_LOCATION", "PASSENGER_ON_BOARD"], "CANCEL", ["STOP", "COMPLETE", "CLOSE"]],
      [["CONFIRMED", "ASSIGNED", "EN_ROUTE", "ON_LOCATION", "PASSENGER_ON_BOARD", "COMPLETE", "CLOSE"], "COMPLETE", []],
      [["FAILED"], "BOOKING_REQUEST", ["CANCEL"]],
    ];
    for (const [path, to, allowed] of SAMPLE) {
      const id = await bookingAt(path);
      const res = await providerUpdate(h, provider, id, { status: to });
      expect({ path, to, status: res.status, code: res.body.code, allowed: res.body.allowed }).toEqual({ path, to, status: 409, code: "INVALID_TRANSITION", allowed });
      for (const s of allowed) expect(res.body.message).toContain(s);
      expect(await statusOf(id)).toBe(path.at(-1) ?? "BOOKING_REQUEST");
    }
  });

  test("legacy spellings are accepted; an unknown status is 400 naming status", async () => {
    const id = await bookingAt([]);
    expect((await providerUpdate(h, provider, id, { status: "ACCEPTED" })).status).toBe(200);
    expect(await statusOf(id)).toBe("CONFIRMED");
    const bad = await providerUpdate(h, provider, id, { status: "DONE" });
    expect(bad.status).toBe(400);
    expect(bad.body.errors[0].field).toBe("status");
  });

  test("details are recorded: providerResNo becomes targetResNo, totalAmount, vehicle and chauffeur, each logged", async () => {
    const id = await bookingAt([]);
    const res = await providerUpdate(h, provider, id, {
      status: "CONFIRMED",
      providerResNo: "AC-55102",
      totalAmount: "240",
      vehicle: { vehType: "SUV", licensePlate: "7ABC123" },
      chauffeur: { firstName: "<NAME>", phoneNumber: "<PHONE>" },
    });
    expect(res.status).toBe(200);
    const got = (await lookup(h, requester, id)).body.data;
    expect(got.targetResNo).toBe("AC-55102");
    expect(got.tripPacket.affiliateReservation.providerResNo).toBe("AC-55102");
    expect(got.tripPacket.totalAmount).toBe("240.00");
    expect(got.tripPacket.vehicle).toEqual({ vehType: "SUV", licensePlate: "7ABC123" });
    expect(got.tripPacket.changeLogs.slice(-5).map((c: any) => c.changeDesc)).toEqual([
      "status BOOKING_REQUEST → CONFIRMED",
      "providerResNo (none) → AC-55102",
      "totalAmount (none) → 240.00",
      "vehicle assigned",
      "chauffeur assigned",
    ]);
    // The same status again with nothing new is a no-op, not a 409.
    expect((await providerUpdate(h, provider, id, { status: "CONFIRMED", providerResNo: "AC-55102" })).status).toBe(200);
    expect((await lookup(h, requester, id)).body.data.tripPacket.changeLogs).toHaveLength(got.tripPacket.changeLogs.length);
  });

  test("the requester calling the provider's operation: 403; a third company: 404, byte-identical to an unknown id", async () => {
    const id = await bookingAt([]);
    const mine = await providerUpdate(h, requester, id, { status: "CONFIRMED" });
    expect(mine.status).toBe(403);
    const theirs = await providerUpdate(h, stranger, id, { status: "CONFIRMED" });
    const unknown = await providerUpdate(h, stranger, crypto.randomUUID(), { status: "CONFIRMED" });
    expect(theirs.status).toBe(404);
    expect(theirs.text).toBe(unknown.text);
    expect(await statusOf(id)).toBe("BOOKING_REQUEST");
  });

  test("a provider cannot turn the requester's quote into a booking", async () => {
    const q = await sendTrip(h, requester, quoteTrip(requester.netid, provider.netid));
    const res = await providerUpdate(h, provider, q.body.transactionId, { status: "BOOKING_REQUEST" });
    expect(res.status).toBe(409);
    expect(res.body.allowed).toEqual(["CANCEL"]);
  });

  test("Idempotency-Key on a status update replays \"OK\" instead of a 409 for the repeated move", async () => {
    const id = await bookingAt(["CONFIRMED", "ASSIGNED", "EN_ROUTE", "ON_LOCATION", "PASSENGER_ON_BOARD"]);
    const key = { "Idempotency-Key": crypto.randomUUID() };
    expect((await providerUpdate(h, provider, id, { status: "COMPLETE" }, key)).text).toBe('"OK"');
    const replay = await providerUpdate(h, provider, id, { status: "COMPLETE" }, key);
    expect(replay.status).toBe(200);
    expect(replay.text).toBe('"OK"');
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
    expect((await providerUpdate(h, provider, id, { status: "CLOSE" }, key)).status).toBe(409);
  });
});

describe("trip statuses wait for the trip (docs/integration.md#trip-statuses-wait-for-the-trip)", () => {
  const resNoUpdate = (resNo: string, body: unknown) =>
    h.request("POST", `/Platform.svc/providerUpdateStatusByResNo/${provider.netid}/${resNo}/V1`, { body, headers: { token: provider.token } });

  test("EN_ROUTE and every later status more than 12 h before the pickup: 409 STATUS_TOO_EARLY naming allowedFrom; nothing kept", async () => {
    // The example picks up at 18:45 in New York on 2027-12-03 (23:45Z): its trip may be under way from 11:45Z.
    const id = await bookingAt(["CONFIRMED", "ASSIGNED"], regularTrip(requester.netid, provider.netid));
    const before = (await lookup(h, requester, id)).body.data;
    for (const to of ["EN_ROUTE", "ENROUTE", "ON_LOCATION", "PASSENGER_ON_BOARD", "COMPLETE", "CLOSE"]) {
      const res = await providerUpdate(h, provider, id, { status: to, providerNote: "on our way", lat: "40.64", lon: "-73.77" });
      expect({ to, status: res.status, code: res.body.code, allowedFrom: res.body.allowedFrom }).toEqual({
        to, status: 409, code: "STATUS_TOO_EARLY", allowedFrom: "2027-12-03T11:45:00Z",
      });
      expect(res.body.message).toContain("2027-12-03T11:45:00Z");
    }
    const after = (await lookup(h, requester, id)).body.data;
    expect(after.lastStatus).toBe("ASSIGNED");
    expect(after.tripPacket.changeLogs).toEqual(before.tripPacket.changeLogs);
    expect(after.tripPacket.providerNote).toBe(before.tripPacket.providerNote);
    // The same through GNet's by-number update; a CANCEL and the details at the same status are not the trip's.
    expect((await providerUpdate(h, provider, id, { status: "ASSIGNED", providerResNo: "WAIT-1" })).status).toBe(200);
    const byResNo = await resNoUpdate("WAIT-1", { status: "ON_LOCATION" });
    expect([byResNo.status, byResNo.body.code]).toEqual([409, "STATUS_TOO_EARLY"]);
    const core = await h.request("GET", `/api/reservation/${id}`, { headers: { authorization: `Bearer ${provider.jwt}` } });
    expect(core.body.providerNext).toEqual(["ACKNOWLEDGED", "CANCEL"]);
    expect((await providerUpdate(h, provider, id, { status: "CANCEL" })).status).toBe(200);
  });

  test("within 12 h of the pickup the trip may be under way", async () => {
    const soon = regularTrip(requester.netid, provider.netid);
    soon.locations.pickup.time = pickupIn(11.9);
    const id = await bookingAt(["CONFIRMED", "ASSIGNED"], soon);
    const core = await h.request("GET", `/api/reservation/${id}`, { headers: { authorization: `Bearer ${provider.jwt}` } });
    expect(core.body.providerNext).toEqual(["ACKNOWLEDGED", "EN_ROUTE", "CANCEL"]);
    expect((await providerUpdate(h, provider, id, { status: "EN_ROUTE" })).status).toBe(200);
    expect(await statusOf(id)).toBe("EN_ROUTE");
  });
});

describe("cancelTripByTransactionId", () => {
  const cancel = (who: Party, id: string) => h.request("POST", `/Platform.svc/cancelTripByTransactionId/${id}/V1`, { headers: { token: who.token } });

  test("the requester cancels before the passenger is on board: \"OK\", status CANCEL, logged", async () => {
    const id = await bookingAt(["CONFIRMED", "ASSIGNED"]);
    const res = await cancel(requester, id);
    expect(res.status).toBe(200);
    expect(res.body).toBe("OK");
    const got = (await lookup(h, provider, id)).body.data;
    expect(got.lastStatus).toBe("CANCEL");
    expect(got.tripPacket.resStatus).toBe("Cancelled");
    expect(got.tripPacket.changeLogs.at(-1).changeDesc).toBe("status ASSIGNED → CANCEL");
  });

  test("after the passenger is on board it is 409; the provider calling it is 403; a stranger gets 404", async () => {
    const late = await bookingAt(["CONFIRMED", "ASSIGNED", "EN_ROUTE", "ON_LOCATION", "PASSENGER_ON_BOARD"]);
    const res = await cancel(requester, late);
    expect(res.status).toBe(409);
    expect(res.body.allowed).toEqual(["STOP", "COMPLETE", "CLOSE"]);
    const id = await bookingAt([]);
    expect((await cancel(provider, id)).status).toBe(403);
    expect((await cancel(stranger, id)).status).toBe(404);
    expect(await statusOf(id)).toBe("BOOKING_REQUEST");
  });

  test("a transactionId that is not a UUID is 400", async () => {
    const res = await cancel(requester, "not-a-uuid");
    expect(res.status).toBe(400);
    expect(res.body.errors[0].field).toBe("transactionId");
  });
});
