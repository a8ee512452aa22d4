import { createHmac } from "node:crypto";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import gnetExample from "../../../../adapters/http/examples/sendtrip-gnet-style.json";
import { createHarness, FAST_DELIVERY, type Harness } from "../../../support/harness";
import { startReceiver, type Received } from "../../../support/receiver";
import { insertFleet, integrate, lookup, nextResNo, parties, type Party, providerUpdate, regularTrip, sendTrip, soonTrip } from "../../../support/trips";
import { verifySignature } from "../../../../adapters/delivery/signing";

type Json = Record<string, any>;

/** The shared GNet-style sample, sent verbatim but for the two netids (and a fresh reservation number). */
function gnetTrip(requester: Party, provider: Party, over: Json = {}): Json {
  const body = structuredClone(gnetExample) as Json;
  body.affiliateReservation.requesterId = requester.netid;
  body.affiliateReservation.providerId = provider.netid;
  body.affiliateReservation.requesterResNo = nextResNo();
  return { ...body, ...over };
}

/** Every leaf of a JSON value with its path ("locations.stops[0].lat"). */
function leaves(value: unknown, path = ""): Array<[string, unknown]> {
  if (value === null || typeof value !== "object") return [[path, value]];
  const entries = Array.isArray(value) ? value.map((v, i) => [`${path}[${i}]`, v] as const) : Object.entries(value).map(([k, v]) => [path ? `${path}.${k}` : k, v] as const);
  return entries.flatMap(([p, v]) => leaves(v, p));
}

/** The value at a leaf path of `leaves`. */
function at(value: unknown, path: string): unknown {
  return path
    .split(/\.|(?=\[)/)
    .reduce<unknown>((v, key) => (v === undefined || v === null ? undefined : (v as Json)[key.startsWith("[") ? Number(key.slice(1, -1)) : key]), value);
}

/** What a leaf of the sample must read as once stored: lat/lon as strings (the spec's type), everything else as sent. */
const stored = (path: string, v: unknown) => (/\.(lat|lon)$/.test(path) && typeof v === "number" ? String(v) : v);

let h: Harness;
let requester: Party, provider: Party, stranger: Party;
let farmIn: ReturnType<typeof startReceiver>;
let listener: ReturnType<typeof startReceiver>;
let webhookSecret: string;
/** How the farm-in answers a trip, by requesterResNo (default: accepted, without a reservation number of its own). */
const farmInAnswers = new Map<string, (r: Received) => Response>();

beforeAll(async () => {
  h = createHarness({ delivery: FAST_DELIVERY });
  ({ requester, provider, stranger } = await parties(h, "-GNET"));
  farmIn = startReceiver((r) => farmInAnswers.get(r.json?.affiliateReservation?.requesterResNo)?.(r) ?? Response.json({ success: true }));
  listener = startReceiver();
  const farm = await integrate(h, provider, { deliveryUrl: `${farmIn.url}/farm-in`, luggage: "native" });
  expect(farm.status).toBe(200);
  const hook = await integrate(h, requester, { webhookUrl: `${listener.url}/gnet-callback`, webhookFormat: "gnet" });
  expect(hook.status).toBe(200);
  webhookSecret = hook.body.data.webhookSecret;
  h.services.worker.start();
});

afterAll(() => {
  farmIn.stop();
  listener.stop();
  h.close();
});

/** The farm-in requests for one trip (by the requester's reservation number), waiting (bounded) for `count`. */
async function farmInGot(requesterResNo: string, count = 1): Promise<Received[]> {
  const deadline = Date.now() + 5000;
  for (;;) {
    const got = farmIn.received.filter((r) => r.json?.affiliateReservation?.requesterResNo === requesterResNo);
    if (got.length >= count) return got;
    if (Date.now() > deadline) throw new Error(`farm-in got ${got.length} of ${count} requests for ${requesterResNo}`);
    await Bun.sleep(20);
  }
}

async function until<T>(read: () => Promise<T>, ok: (v: T) => boolean, timeoutMs = 5000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await read();
    if (ok(v)) return v;
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await Bun.sleep(20);
  }
}

const booking = async (who: Party, id: string) => (await lookup(h, who, id)).body.data;
const platform = (method: string, path: string, who: Party, body?: unknown) => h.request(method, path, { headers: { token: who.token }, ...(body !== undefined ? { body } : {}) });

describe("GNet's sample reservation, sent verbatim", () => {
  test("is accepted (WAIT answers the partner's reservationId), and every one of its fields is in the booking and in the partner's copy", async () => {
    const body = gnetTrip(requester, provider);
    const resNo = body.affiliateReservation.requesterResNo;
    farmInAnswers.set(resNo, () => Response.json({ success: true, reservationId: `AC-${resNo}` }));
    const sent = await sendTrip(h, requester, body);
    expect(sent.status).toBe(200);
    expect(sent.body).toMatchObject({ success: true, status: "BOOKING_REQUEST", reservationId: `AC-${resNo}` });
    const id = sent.body.transactionId;

    const data = await booking(requester, id);
    const viaPlatform = (await platform("GET", `/Platform.svc/getReservationByTransactionId/${id}/V1`, provider)).body.data;
    const [delivered] = await farmInGot(resNo);
    const fields = leaves(body);
    expect(fields.length).toBeGreaterThan(60);
    for (const [path, value] of fields) {
      const want = stored(path, value);
      expect({ path, booking: at(data.tripPacket, path) }).toEqual({ path, booking: want });
      expect({ path, platform: at(viaPlatform.tripPacket, path) }).toEqual({ path, platform: want });
      expect({ path, partner: at(delivered.json, path) }).toEqual({ path, partner: want });
    }
    expect(data.tripPacket.locations.stops[0].lat).toBe("42.3601");
    expect(data.tripPacket.reservationDate).toBe("-05:00");
    expect(data.targetResNo).toBe(`AC-${resNo}`);
  });

  test("a field added to the payload, at any depth, is stored and reaches the partner's endpoint verbatim", async () => {
    const body = gnetTrip(requester, provider, { submitMode: "ASYNC", loyaltyProgram: { tier: "gold", since: 2019, tags: ["vip", " spaced "] } });
    body.locations.pickup.terminalGate = "B12 ";
    body.locations.stops[0].waitMinutes = 10;
    body.passengers[0].title = "Dr.";
    body.affiliateReservation.bookingChannel = "mobile";
    const resNo = body.affiliateReservation.requesterResNo;
    const sent = await sendTrip(h, requester, body);
    expect(sent.status).toBe(200);
    const [delivered] = await farmInGot(resNo);
    const data = await booking(requester, sent.body.transactionId);
    for (const copy of [delivered.json, data.tripPacket]) {
      expect(copy.loyaltyProgram).toEqual({ tier: "gold", since: 2019, tags: ["vip", " spaced "] });
      expect(copy.locations.pickup.terminalGate).toBe("B12 ");
      expect(copy.locations.stops[0].waitMinutes).toBe(10);
      expect(copy.passengers[0].title).toBe("Dr.");
      expect(copy.affiliateReservation.bookingChannel).toBe("mobile");
    }
  });

  test("an UPDATE changes GNet fields and unnamed fields, logs each, and delivers them", async () => {
    const body = gnetTrip(requester, provider, { submitMode: "ASYNC" });
    const resNo = body.affiliateReservation.requesterResNo;
    const sent = await sendTrip(h, requester, body);
    await farmInGot(resNo);
    const update = {
      affiliateReservation: { requesterId: requester.netid, requesterResNo: resNo, action: "UPDATE" },
      notes: [{ message: "Gate code 4411", context: "driver" }],
      namesignInstructions: "Dr. Hopper",
      dressCode: "formal",
    };
    expect((await sendTrip(h, requester, update)).status).toBe(200);
    const [, second] = await farmInGot(resNo, 2);
    expect(second.json.affiliateReservation.action).toBe("UPDATE");
    expect(second.json.notes).toEqual([{ message: "Gate code 4411", context: "DRIVER" }]);
    expect(second.json.namesignInstructions).toBe("Dr. Hopper");
    expect(second.json.dressCode).toBe("formal");
    expect(second.json.locations.stops).toHaveLength(1);
    const logs = (await booking(requester, sent.body.transactionId)).tripPacket.changeLogs.map((c: Json) => c.changeDesc);
    expect(logs).toEqual(expect.arrayContaining(["namesignInstructions changed", "notes changed (2 → 1)", "dressCode changed"]));
  });
});

describe("inputs as GNet sends them", () => {
  test("lat/lon as numbers, strings or null; null on optional fields means absent; ONDEMAND; amounts with trailing zeros", async () => {
    const body = regularTrip(requester.netid, provider.netid, {
      reservationType: "ONDEMAND",
      reservationDate: "-08:00",
      luggageCount: null,
      passengerCount: 2,
      fees: [{ type: "BASE", fee: "1.50000", currency: "USD" }, { type: "TOLL", fee: 12, currency: "USD" }],
    });
    body.locations.pickup.lat = 40.6413;
    body.locations.pickup.lon = "-73.7781";
    body.locations.pickup.landmark = null;
    body.locations.dropOff.lat = null;
    body.locations.dropOff.lon = null;
    const sent = await sendTrip(h, requester, body);
    expect(sent.status).toBe(200);
    const data = await booking(requester, sent.body.transactionId);
    expect(data.tripPacket.reservationType).toBe("ONDEMAND");
    expect(data.tripPacket.reservationDate).toBe("-08:00");
    expect(data.tripPacket.passengerCount).toBe("2");
    expect("luggageCount" in data.tripPacket).toBe(false);
    expect(data.tripPacket.locations.pickup).toMatchObject({ lat: "40.6413", lon: "-73.7781" });
    expect("landmark" in data.tripPacket.locations.pickup).toBe(false);
    expect("lat" in data.tripPacket.locations.dropOff).toBe(false);
    expect(data.tripPacket.fees.map((f: Json) => f.fee)).toEqual(["1.50", "12.00"]);
    // An ONDEMAND trip is booked like a REGULAR one.
    expect(data.lastStatus).toBe("BOOKING_REQUEST");
  });

  test("bad input is a 400 naming each field, and nothing is stored", async () => {
    const stops = Array.from({ length: 10_000 }, (_, i) => ({ address: `Stop ${i}` }));
    const cases: Array<[string, (b: Json) => void, string]> = [
      ["lat abc", (b) => (b.locations.pickup.lat = "abc"), "locations.pickup.lat"],
      ["lat 91", (b) => (b.locations.pickup.lat = 91), "locations.pickup.lat"],
      ["lon -180.5", (b) => (b.locations.dropOff.lon = -180.5), "locations.dropOff.lon"],
      ["lat true", (b) => (b.locations.pickup.lat = true), "locations.pickup.lat"],
      ["a stop without an address", (b) => (b.locations.stops = [{ city: "Boston", lat: 42.36, lon: -71.05 }]), "locations.stops[0].address"],
      ["10,000 stops", (b) => (b.locations.stops = stops), "locations.stops"],
      ["a stop's lat", (b) => (b.locations.stops = [{ address: "1 Main St", lat: "north" }]), "locations.stops[0].lat"],
      ["stopNumber 0", (b) => (b.locations.stops = [{ address: "1 Main St", stopNumber: 0 }]), "locations.stops[0].stopNumber"],
      ["a note for nobody", (b) => (b.notes = [{ message: "hi", context: "CHEF" }]), "notes[0].context"],
      ["an empty note", (b) => (b.notes = [{ message: " ", context: "DRIVER" }]), "notes[0].message"],
      ["a phone without a number", (b) => (b.passengers[0].phones = [{ type: "mobile" }]), "passengers[0].phones[0].number"],
      ["a fee with digits past the cents", (b) => (b.fees = [{ fee: "1.505" }]), "fees[0].fee"],
      ["a percent over 100", (b) => (b.fees = [{ fee: "10", percent: 120 }]), "fees[0].percent"],
      ["a reservationDate that is neither", (b) => (b.reservationDate = "yesterday"), "reservationDate"],
      ["an unknown reservationType", (b) => (b.reservationType = "LATER"), "reservationType"],
      ["totalTripDuration in words", (b) => (b.totalTripDuration = "two hours"), "totalTripDuration"],
      ["eventName too long", (b) => (b.eventName = "x".repeat(251)), "eventName"],
    ];
    for (const [name, spoil, field] of cases) {
      const body = gnetTrip(requester, provider, { submitMode: "ASYNC" });
      spoil(body);
      const res = await sendTrip(h, requester, body);
      expect({ name, status: res.status, code: res.body.code }).toEqual({ name, status: 400, code: "VALIDATION_FAILED" });
      expect({ name, fields: res.body.errors.map((e: Json) => e.field) }).toEqual({ name, fields: expect.arrayContaining([field]) });
      expect(res.text).not.toContain("north");
      const listed = await h.request("GET", `/api/reservations?requesterResNo=${body.affiliateReservation.requesterResNo}`, { headers: { authorization: `Bearer ${requester.jwt}` } });
      expect({ name, total: listed.body.data.total }).toEqual({ name, total: 0 });
    }
  });
});

describe("platform paths in any letter case", () => {
  test("/platform.svc/sendtrip/v1 is sendTrip/V1; getToken2, lookups and unknown operations too", async () => {
    for (const path of ["/platform.svc/sendtrip/v1", "/PLATFORM.SVC/SENDTRIP", "/Platform.svc/SendTrip/V1"]) {
      const res = await h.request("POST", path, { body: regularTrip(requester.netid, provider.netid), headers: { token: requester.token, "x-request-id": "gnet-case-1" } });
      expect({ path, status: res.status }).toEqual({ path, status: 200 });
      expect(res.headers.get("x-request-id")).toBe("gnet-case-1");
      const id = res.body.transactionId;
      const read = await h.request("GET", `/platform.svc/getreservationbytransactionid/${id}/v1`, { headers: { token: requester.token } });
      expect(read.status).toBe(200);
      expect(read.body.data.transactionId).toBe(id);
    }
    const token = await h.request("POST", "/platform.svc/GETTOKEN2", { body: { uid: "nobody", pw: "wrong password" } });
    expect(token.status).toBe(401);
    const unknown = await h.request("GET", "/platform.svc/noSuchOperation/v1", { headers: { token: requester.token } });
    expect(unknown.status).toBe(404);
    expect(unknown.body).toMatchObject({ success: false, code: "ROUTE_NOT_FOUND" });
    // Core paths keep their exact spelling.
    expect((await h.request("GET", "/API/TRIP-STATES")).status).toBe(404);
  });
});

describe("provider updates as GNet providers send them", () => {
  async function confirmedTrip() {
    const sent = await sendTrip(h, requester, soonTrip(requester.netid, provider.netid));
    const id = sent.body.transactionId as string;
    const resNo = `PRV-${nextResNo()}`;
    expect((await providerUpdate(h, provider, id, { status: "CONFIRMED", providerResNo: resNo })).status).toBe(200);
    return { id, resNo };
  }

  test("providerUpdateStatusByResNo with GNet's body: every field kept and shown; CONFIRMED → ON_LOCATION names the skipped states", async () => {
    const { id, resNo } = await confirmedTrip();
    const update = {
      status: "ON_LOCATION",
      resNo,
      LocalTimestamp: "2026-12-11T16:05:00",
      UTCtimestamp: "2026-12-11T21:05:00Z",
      griddID: "GRD-7781",
      requesterResNo: null,
      transactionId: id,
      providerNote: "Chauffeur at door 6",
      totalAmount: "240.500",
      // The total is the sum of the lines (docs/terms.md#the-price-is-the-sum-of-its-lines).
      fees: [
        { type: "BASE", name: "Base rate", fee: "200.50", currency: "USD" },
        { type: "GRATUITY", name: "Gratuity", fee: "40.00", currency: "USD", percent: "20", reimbursable: "False" },
      ],
      chauffeur: { chauffeurId: "CH-12", firstName: "Sam", lastName: "Lee", email: "<EMAIL>", phoneNumber: "<PHONE>", picURL: "https://acme.example/ch-12.jpg", phones: [{ number: "<PHONE>", type: "mobile" }] },
      vehicle: { vehicleId: "V-9", vehicleType: "SUV", make: "Cadillac", model: "Escalade", year: 2024, vin: "1GYS4HKJ0LR000001", plateNo: "7ABC123", vColor: "Black", passengerCount: "6", mileage: 12000 },
      lat: 42.3656,
      lon: -71.0096,
      dispatcherName: "Night desk",
    };
    const res = await platform("POST", `/Platform.svc/providerUpdateStatusByResNo/${provider.netid.toLowerCase()}/${resNo}/V1`, provider, update);
    expect({ status: res.status, text: res.text }).toEqual({ status: 200, text: '"OK"' });
    const data = await booking(requester, id);
    expect(data.lastStatus).toBe("ON_LOCATION");
    expect(data.tripPacket.totalAmount).toBe("240.50");
    expect(data.tripPacket.providerNote ?? data.tripPacket.affiliateReservation.providerNote).toBe("Chauffeur at door 6");
    expect(data.tripPacket.fees).toEqual(update.fees);
    expect(data.tripPacket.chauffeur).toEqual(update.chauffeur);
    expect(data.tripPacket.vehicle).toEqual(update.vehicle);
    expect(data.tripPacket.location).toMatchObject({ lat: 42.3656, lon: -71.0096 });
    expect(data.tripPacket.providerUpdate).toEqual({ LocalTimestamp: update.LocalTimestamp, UTCtimestamp: update.UTCtimestamp, griddID: "GRD-7781", dispatcherName: "Night desk" });
    expect(data.tripPacket.changeLogs.map((c: Json) => c.changeDesc)).toContain("status CONFIRMED → ON_LOCATION (skipped ASSIGNED, EN_ROUTE)");
  });

  test("a backward move and a move out of a final state stay 409 with the allowed next states", async () => {
    const { id, resNo } = await confirmedTrip();
    const path = `/Platform.svc/providerUpdateStatusByResNo/${provider.netid}/${resNo}`;
    expect((await platform("POST", `${path}/v1`, provider, { status: "PASSENGER_ON_BOARD" })).status).toBe(200);
    const back = await platform("POST", path, provider, { status: "EN_ROUTE" });
    expect(back.status).toBe(409);
    expect(back.body).toMatchObject({ code: "INVALID_TRANSITION", allowed: ["STOP", "COMPLETE", "CLOSE"] });
    expect((await platform("POST", `${path}/V1`, provider, { status: "CLOSE" })).status).toBe(200);
    const after = await platform("POST", `${path}/V1`, provider, { status: "COMPLETE" });
    expect(after.status).toBe(409);
    expect(after.body.allowed).toEqual([]);
    const logs = (await booking(requester, id)).tripPacket.changeLogs.map((c: Json) => c.changeDesc);
    expect(logs).toContain("status CONFIRMED → PASSENGER_ON_BOARD (skipped ASSIGNED, EN_ROUTE, ON_LOCATION)");
    expect(logs).toContain("status PASSENGER_ON_BOARD → CLOSE (skipped COMPLETE)");
  });

  test("by resNo: the requester is 403, a stranger and an unknown number get the same 404, a body naming another booking is 400", async () => {
    const { id, resNo } = await confirmedTrip();
    const path = `/Platform.svc/providerUpdateStatusByResNo/${provider.netid}/${resNo}/V1`;
    expect((await platform("POST", path, requester, { status: "ASSIGNED" })).status).toBe(403);
    const theirs = await platform("POST", path, stranger, { status: "ASSIGNED" });
    const unknown = await platform("POST", `/Platform.svc/providerUpdateStatusByResNo/${provider.netid}/NO-SUCH-NUMBER/V1`, provider, { status: "ASSIGNED" });
    expect(theirs.status).toBe(404);
    expect(theirs.text).toBe(unknown.text);
    const other = await platform("POST", path, provider, { status: "ASSIGNED", transactionId: crypto.randomUUID() });
    expect(other.status).toBe(400);
    expect(other.body.errors[0].field).toBe("transactionId");
    const twoNumbers = await platform("POST", path, provider, { status: "ASSIGNED", resNo: "A-1", providerResNo: "A-2" });
    expect([twoNumbers.status, twoNumbers.body.errors[0].field]).toEqual([400, "resNo"]);
    const half = await platform("POST", path, provider, { status: "ASSIGNED", lat: 42.1 });
    expect(half.status).toBe(400);
    expect(half.body.errors[0].field).toBe("lon");
    expect((await booking(requester, id)).lastStatus).toBe("CONFIRMED");
  });
});

describe("requester operations by reservation number", () => {
  test("getReservationByReservationId by either party's pair; strangers get the same 404 as an unknown number", async () => {
    const body = regularTrip(requester.netid, provider.netid);
    const resNo = body.affiliateReservation.requesterResNo;
    const id = (await sendTrip(h, requester, body)).body.transactionId;
    await providerUpdate(h, provider, id, { status: "CONFIRMED", resNo: `P-${resNo}` });
    for (const version of ["/V1", "/v1", ""]) {
      const mine = await platform("GET", `/Platform.svc/getReservationByReservationId/${requester.netid}/${resNo}${version}`, requester);
      expect({ version, status: mine.status, id: mine.body.data?.transactionId }).toEqual({ version, status: 200, id });
    }
    const byProvider = await platform("GET", `/Platform.svc/getReservationByReservationId/${provider.netid}/P-${resNo}/V1`, requester);
    expect(byProvider.body.data.transactionId).toBe(id);
    const theirs = await platform("GET", `/Platform.svc/getReservationByReservationId/${requester.netid}/${resNo}/V1`, stranger);
    const unknown = await platform("GET", `/Platform.svc/getReservationByReservationId/${requester.netid}/NOPE/V1`, stranger);
    expect(theirs.status).toBe(404);
    expect(theirs.text).toBe(unknown.text);
  });

  test("cancelTripByResNo by GET or POST cancels; the provider is 403; a stranger 404", async () => {
    for (const method of ["GET", "POST"]) {
      const body = regularTrip(requester.netid, provider.netid);
      const resNo = body.affiliateReservation.requesterResNo;
      const id = (await sendTrip(h, requester, body)).body.transactionId;
      const path = `/Platform.svc/cancelTripByResNo/${requester.netid}/${resNo}/V1`;
      expect((await platform(method, path, provider)).status).toBe(403);
      expect((await platform(method, path, stranger)).status).toBe(404);
      const res = await platform(method, path, requester);
      expect({ method, status: res.status, text: res.text }).toEqual({ method, status: 200, text: '"OK"' });
      expect((await booking(requester, id)).lastStatus).toBe("CANCEL");
      expect((await platform(method, path, requester)).status).toBe(409);
    }
  });
});

describe("farm-in replies as GNet partners answer", () => {
  test("success:false in a 200 is a failed attempt with the partner's message, retried, then FAILED", async () => {
    const body = regularTrip(requester.netid, provider.netid, { submitMode: "WAIT" });
    const resNo = body.affiliateReservation.requesterResNo;
    farmInAnswers.set(resNo, () => Response.json({ success: false, message: "No vehicles available at that hour" }));
    const sent = await sendTrip(h, requester, body);
    expect(sent.status).toBe(200);
    expect(sent.body.reservationId).toBeUndefined();
    expect(sent.body.deliveryError).toContain("No vehicles available at that hour");
    const data = await until(() => booking(requester, sent.body.transactionId), (d) => d.lastStatus === "FAILED");
    expect(data.tripPacket.transactionErrors.length).toBe(4);
    for (const e of data.tripPacket.transactionErrors) expect(e.errDesc).toContain("No vehicles available at that hour");
    expect(data.tripPacket.affiliateReservation.status).toBe("FAILED");
    expect(data.targetResNo).toBeNull();
  });

  test("an accepting reply's reservationId, totalAmount and fees are the booking's, and WAIT answers them", async () => {
    const body = regularTrip(requester.netid, provider.netid, { submitMode: "wait" });
    const resNo = body.affiliateReservation.requesterResNo;
    const fees = [{ type: "BASE", name: "Base rate", fee: "250.00", currency: "USD" }, { type: "GRATUITY", fee: "50", percent: 20, reimbursable: false }];
    farmInAnswers.set(resNo, () => Response.json({ success: true, reservationId: 88120, totalAmount: "300.0000", fees }));
    const sent = await sendTrip(h, requester, body);
    expect(sent.body).toMatchObject({ success: true, reservationId: "88120", totalAmount: "300.00" });
    expect(sent.body.fees).toEqual([fees[0], { ...fees[1], fee: "50.00" }]);
    const data = await booking(requester, sent.body.transactionId);
    expect(data.targetResNo).toBe("88120");
    expect(data.tripPacket.totalAmount).toBe("300.00");
    expect(data.tripPacket.fees).toEqual(sent.body.fees);
  });
});

describe("GNet-shaped webhooks", () => {
  test("the requester's listener gets GNet's callback body at the top level, signed, with the event id header", async () => {
    const sent = await sendTrip(h, requester, regularTrip(requester.netid, provider.netid));
    const id = sent.body.transactionId;
    const update = { status: "ASSIGNED", providerResNo: "AC-GNET-1", vehicle: { vehType: "SUV", licensePlate: "7ABC123", color: "Black" }, chauffeur: { firstName: "Sam", lastName: "Lee" } };
    expect((await providerUpdate(h, provider, id, { status: "CONFIRMED" })).status).toBe(200);
    expect((await providerUpdate(h, provider, id, { ...update, lat: "42.36", lon: "-71.05" })).status).toBe(200);
    const got = await until(
      async () => listener.received.filter((r) => r.json?.transactionId === id),
      (list) => list.some((r) => r.json.status === "ASSIGNED"),
    );
    const last = got.find((r) => r.json.status === "ASSIGNED")!;
    expect(last.path).toBe("/gnet-callback");
    expect(Object.keys(last.json).sort()).toEqual(["affiliateReservation", "chauffeur", "fees", "location", "providerNote", "status", "terms", "totalAmount", "transactionId", "vehicle"]);
    expect(last.json.affiliateReservation).toMatchObject({
      requesterId: requester.netid,
      providerId: provider.netid,
      providerResNo: "AC-GNET-1",
      providerResCode: "AC-GNET-1",
      action: "NEW",
      submissionTarget: "TRIPSWITCH",
      status: "ASSIGNED",
      updateTime: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/),
    });
    expect(last.json.vehicle).toMatchObject({ vehicleType: "SUV", plateNo: "7ABC123", vColor: "Black" });
    expect(last.json.location).toMatchObject({ lat: 42.36, lon: -71.05 });
    expect(last.json.chauffeur).toEqual(update.chauffeur);
    expect(last.headers["x-tripswitch-event-id"]).toMatch(/^[0-9a-f-]{36}$/);
    expect(verifySignature(webhookSecret, last.body, last.headers["x-tripswitch-signature"], Math.floor(Date.now() / 1000))).toBe(true);
  });

  test("the event id, carried only in a header, is signed by the v2 scheme over '<t>.<eventId>.<body>' (v1 stays)", async () => {
    const sent = await sendTrip(h, requester, regularTrip(requester.netid, provider.netid));
    const [first] = await until(async () => listener.received.filter((r) => r.json?.transactionId === sent.body.transactionId), (list) => list.length > 0);
    const header = first.headers["x-tripswitch-signature"];
    const eventId = first.headers["x-tripswitch-event-id"];
    expect(header).toMatch(/^t=\d+,v1=[0-9a-f]{64},v2=[0-9a-f]{64}$/);
    const t = header.split(",")[0].slice(2);
    expect(header.split(",")[2]).toBe(`v2=${createHmac("sha256", webhookSecret).update(`${t}.${eventId}.${first.body}`).digest("hex")}`);
    const now = Math.floor(Date.now() / 1000);
    expect(verifySignature(webhookSecret, first.body, header, now, 300, eventId)).toBe(true);
    // A captured body replayed under another event id (to dodge a receiver's de-duplication) fails v2.
    expect(verifySignature(webhookSecret, first.body, header, now, 300, crypto.randomUUID())).toBe(false);
  });
});

describe("quotes priced on GNet's totalTripDuration", () => {
  test("an ONDEMAND resubmission of a quote books it, like a REGULAR one, and keeps its type", async () => {
    await insertFleet(h, provider.netid, [{ slug: "gnet-ondemand-suv", type: "SUV", maxPassengers: 6, maxLuggage: 6, hourlyRate: "90.00", airports: ["BOS"] }]);
    const body = gnetTrip(requester, provider, { reservationType: "QUOTE", submitMode: "ASYNC" });
    const quote = await sendTrip(h, requester, body);
    expect(quote.body.status).toBe("QUOTE");
    const booked = await sendTrip(h, requester, { ...body, reservationType: "ONDEMAND", fees: [{ code: "gnet-ondemand-suv" }] });
    expect(booked.body).toMatchObject({ transactionId: quote.body.transactionId, status: "BOOKING_REQUEST" });
    expect((await booking(requester, quote.body.transactionId)).tripPacket).toMatchObject({ reservationType: "ONDEMAND", fees: [{ code: "gnet-ondemand-suv" }] });
  });

  test("an hourly quote uses the booked minutes instead of the distance", async () => {
    await insertFleet(h, provider.netid, [{ slug: "gnet-hourly-sedan", maxPassengers: 4, maxLuggage: 3, hourlyRate: "100.00", airports: ["BOS"] }]);
    const quote = await sendTrip(h, requester, gnetTrip(requester, provider, { reservationType: "QUOTE", submitMode: "ASYNC", totalTripDuration: "195", passengerCount: "1" }));
    expect(quote.status).toBe(200);
    // 195 minutes → 3¼ h at 100.00 an hour (the distance of the sample trip would give 1 h).
    expect(quote.body.fees.find((f: Json) => f.code === "gnet-hourly-sedan")?.fee).toBe("325.00");
  });
});

describe("OpenAPI", () => {
  test("documents the GNet operations, the GNet example and the fields GNet sends", async () => {
    const spec = (await h.request("GET", "/docs/json")).body;
    for (const path of [
      "/Platform.svc/providerUpdateStatusByResNo/{netid}/{resNo}/V1",
      "/Platform.svc/getReservationByReservationId/{netid}/{resNo}/V1",
      "/Platform.svc/cancelTripByResNo/{netid}/{resNo}/V1",
    ])
      expect(spec.paths[path]).toBeDefined();
    const send = JSON.stringify(spec.paths["/Platform.svc/sendTrip/V1"].post.requestBody);
    expect(send).toContain(JSON.stringify(gnetExample.notes));
    for (const field of ["stops", "namesignInstructions", "totalTripDuration", "meetAndGreet", "callerEmail", "phones", "ONDEMAND"]) expect(send).toContain(field);
    const update = JSON.stringify(spec.paths["/Platform.svc/providerUpdateStatusByResNo/{netid}/{resNo}/V1"].post.requestBody);
    for (const field of ["resNo", "UTCtimestamp", "griddID", "plateNo", "vColor", "picURL", "reimbursable"]) expect(update).toContain(field);
    expect(JSON.stringify(spec.paths["/api/trip-states"])).toContain("skipTo");
  });
});
