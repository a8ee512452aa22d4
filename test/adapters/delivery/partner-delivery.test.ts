import { afterEach, describe, expect, test } from "bun:test";
import { createHarness, FAST_DELIVERY, type Harness } from "../../support/harness";
import { startReceiver } from "../../support/receiver";
import { insertFleet, integrate, lookup, parties, type Party, quoteTrip, regularTrip, sendTrip } from "../../support/trips";

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** A requester and a provider whose delivery endpoint is a real receiver on 127.0.0.1. */
async function setup(luggage: "notes" | "native", respond?: Parameters<typeof startReceiver>[0]) {
  const h = createHarness({ delivery: FAST_DELIVERY });
  cleanups.push(() => h.close());
  const rx = startReceiver(respond);
  cleanups.push(rx.stop);
  const { requester, provider, stranger } = await parties(h);
  const put = await integrate(h, provider, { deliveryUrl: `${rx.url}/farm-in`, luggage, deliveryAuth: { username: "tripswitch", password: "partner-basic-pw" } });
  expect(put.status).toBe(200);
  h.services.worker.start();
  return { h, rx, requester, provider, stranger };
}

async function booking(h: Harness, who: Party, transactionId: string) {
  const res = await lookup(h, who, transactionId);
  expect(res.status).toBe(200);
  return res.body.data;
}

async function until(check: () => boolean | Promise<boolean>, timeoutMs = 5000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await Bun.sleep(20);
  }
}

describe("delivery to a partner's endpoint", () => {
  test("a notes partner gets exactly one luggage line after the original notes; the stored booking is untouched", async () => {
    const { h, rx, requester, provider } = await setup("notes");
    const sent = await sendTrip(h, requester, regularTrip(requester.netid, provider.netid, { luggageCount: "4", specialInstructions: "Flight often early; wait at door 6" }));
    expect(sent.status).toBe(200);
    const [got] = await rx.waitFor(1);
    expect(got.path).toBe("/farm-in");
    expect(got.headers["content-type"]).toStartWith("application/json");
    expect(got.headers.authorization).toBe(`Basic ${Buffer.from("tripswitch:partner-basic-pw").toString("base64")}`);
    expect(got.json.specialInstructions).toBe("Flight often early; wait at door 6\nLuggage Count : 4");
    expect(got.json.specialInstructions.match(/Luggage Count/g)).toHaveLength(1);
    expect(got.json.luggageCount).toBe("4");
    expect(got.json.transactionId).toBe(sent.body.transactionId);
    expect(got.json.eventId).toBe(got.headers["x-tripswitch-event-id"]);
    expect(got.json.affiliateReservation).toMatchObject({ requesterId: requester.netid, providerId: provider.netid, action: "NEW" });
    expect(got.json.passengers).toHaveLength(1);
    const stored = await booking(h, requester, sent.body.transactionId);
    expect(stored.tripPacket.specialInstructions).toBe("Flight often early; wait at door 6");
    expect(stored.tripPacket.luggageCount).toBe("4");
  });

  test("a native partner gets the field only", async () => {
    const { h, rx, requester, provider } = await setup("native");
    await sendTrip(h, requester, regularTrip(requester.netid, provider.netid, { luggageCount: "2", specialInstructions: "Door 6" }));
    const [got] = await rx.waitFor(1);
    expect(got.json.luggageCount).toBe("2");
    expect(got.json.specialInstructions).toBe("Door 6");
  });

  test("without luggage there is no line and no field", async () => {
    const { h, rx, requester, provider } = await setup("notes");
    const body = regularTrip(requester.netid, provider.netid, { specialInstructions: "Door 6" });
    delete body.luggageCount;
    await sendTrip(h, requester, body);
    const [got] = await rx.waitFor(1);
    expect("luggageCount" in got.json).toBe(false);
    expect(got.json.specialInstructions).toBe("Door 6");
  });

  test("an UPDATE that changes luggage replaces the line; a CANCEL follows in order", async () => {
    const { h, rx, requester, provider } = await setup("notes");
    const body = regularTrip(requester.netid, provider.netid, { luggageCount: "4", specialInstructions: "Door 6" });
    const sent = await sendTrip(h, requester, body);
    expect((await sendTrip(h, requester, { luggageCount: "6", affiliateReservation: { ...body.affiliateReservation, action: "UPDATE" } })).status).toBe(200);
    expect((await sendTrip(h, requester, { affiliateReservation: { ...body.affiliateReservation, action: "CANCEL" } })).status).toBe(200);
    const got = await rx.waitFor(3);
    expect(got.map((r) => r.json.affiliateReservation.action)).toEqual(["NEW", "UPDATE", "CANCEL"]);
    expect(got[1].json.specialInstructions).toBe("Door 6\nLuggage Count : 6");
    expect(got[1].json.luggageCount).toBe("6");
    expect(new Set(got.map((r) => r.json.eventId)).size).toBe(3);
    expect((await booking(h, requester, sent.body.transactionId)).tripPacket.specialInstructions).toBe("Door 6");
  });

  test("a QUOTE is delivered with its options", async () => {
    const { h, rx, requester, provider } = await setup("notes");
    await insertFleet(h, provider.netid, [{ slug: "acme-sprinter", maxPassengers: 12, maxLuggage: 12 }]);
    const sent = await sendTrip(h, requester, quoteTrip(requester.netid, provider.netid));
    expect(sent.status).toBe(200);
    const [got] = await rx.waitFor(1);
    expect(got.json.reservationType).toBe("QUOTE");
    expect(got.headers["x-tripswitch-event-type"]).toBe("quote.new");
    expect(got.json.fees.map((f: { code: string }) => f.code)).toEqual(["acme-sprinter"]);
  });

  test("the provider's reservationId becomes targetResNo, and submitMode WAIT answers it", async () => {
    const { h, requester, provider } = await setup("notes", () => Response.json({ reservationId: "ACME-55120" }));
    const sent = await sendTrip(h, requester, regularTrip(requester.netid, provider.netid, { submitMode: "WAIT" }));
    expect(sent.status).toBe(200);
    expect(sent.body.reservationId).toBe("ACME-55120");
    const data = await booking(h, provider, sent.body.transactionId);
    expect(data.targetResNo).toBe("ACME-55120");
    expect(data.tripPacket.affiliateReservation.providerResNo).toBe("ACME-55120");
    expect(data.tripPacket.changeLogs.at(-1).changeDesc).toContain("providerResNo none → ACME-55120");
  });

  test("submitMode WAIT answers without reservationId when the provider has no endpoint or gives none", async () => {
    const { h, requester, provider } = await setup("notes", () => new Response("ok", { status: 202 }));
    const sent = await sendTrip(h, requester, regularTrip(requester.netid, provider.netid, { submitMode: "WAIT" }));
    expect(sent.status).toBe(200);
    expect("reservationId" in sent.body).toBe(false);
  });

  test("a partner failing twice then answering gets the message exactly once more; the booking shows both errors", async () => {
    const { h, rx, requester, provider } = await setup("notes", (_r, n) => (n <= 2 ? new Response("down", { status: 503 }) : Response.json({ reservationId: "P-1" })));
    const sent = await sendTrip(h, requester, regularTrip(requester.netid, provider.netid));
    await rx.waitFor(3);
    await until(async () => (await booking(h, requester, sent.body.transactionId)).targetResNo === "P-1");
    await Bun.sleep(200);
    expect(rx.received).toHaveLength(3);
    expect(new Set(rx.received.map((r) => r.json.eventId)).size).toBe(1);
    const data = await booking(h, requester, sent.body.transactionId);
    expect(data.tripPacket.transactionErrors).toHaveLength(2);
    for (const e of data.tripPacket.transactionErrors) {
      expect(e.errCode).toBe("DELIVERY_ATTEMPT_FAILED");
      expect(e.errDesc).toContain("HTTP 503");
      expect(e.timestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    }
    expect(data.tripPacket.affiliateReservation.status).toBe("BOOKING_REQUEST");
    expect(data.lastStatus).toBe("BOOKING_REQUEST");
  });

  test("a partner that never answers ends FAILED; retryTransaction re-delivers once it is back", async () => {
    const { h, rx, requester, provider, stranger } = await setup("notes");
    rx.state.hang = true;
    const sent = await sendTrip(h, requester, regularTrip(requester.netid, provider.netid));
    const id = sent.body.transactionId;
    await until(async () => (await booking(h, requester, id)).lastStatus === "FAILED", 8000);
    const failed = await booking(h, requester, id);
    expect(failed.tripPacket.affiliateReservation.status).toBe("FAILED");
    expect(failed.tripPacket.affiliateReservation.notes).toContain("Delivery failed");
    expect(failed.tripPacket.transactionErrors.map((e: { errCode: string }) => e.errCode)).toEqual(["DELIVERY_ATTEMPT_FAILED", "DELIVERY_ATTEMPT_FAILED", "DELIVERY_ATTEMPT_FAILED", "DELIVERY_FAILED"]);
    expect(failed.tripPacket.transactionErrors[3].errDesc).toContain("no answer");

    expect((await h.request("GET", `/Platform.svc/retryTransaction/${id}`, { headers: { token: stranger.token } })).status).toBe(404);
    rx.state.hang = false;
    const before = rx.received.length;
    const retry = await h.request("GET", `/Platform.svc/retryTransaction/${id}/V1`, { headers: { token: requester.token } });
    expect(retry.status).toBe(200);
    expect(retry.text).toBe('"OK"');
    await rx.waitFor(before + 1);
    await until(async () => (await h.services.outbox.latest(id, "delivery"))?.status === "delivered");
    const back = await booking(h, requester, id);
    expect(back.lastStatus).toBe("BOOKING_REQUEST");
    expect(back.tripPacket.affiliateReservation.status).toBe("BOOKING_REQUEST");
    expect(back.tripPacket.changeLogs.map((c: { changeDesc: string }) => c.changeDesc)).toEqual(expect.arrayContaining([expect.stringContaining("FAILED → BOOKING_REQUEST")]));
    expect(rx.received.at(-1)!.json.eventId).toBe(rx.received[0].json.eventId);
    const nothing = await h.request("GET", `/Platform.svc/retryTransaction/${id}`, { headers: { token: requester.token } });
    expect(nothing.status).toBe(409);
    expect(nothing.body.code).toBe("NOTHING_TO_RETRY");
  });

  test("no endpoint, no delivery: the booking is unaffected", async () => {
    const h = createHarness({ delivery: FAST_DELIVERY });
    cleanups.push(() => h.close());
    const { requester, provider } = await parties(h);
    h.services.worker.start();
    const sent = await sendTrip(h, requester, regularTrip(requester.netid, provider.netid));
    expect(await h.services.outbox.forBooking(sent.body.transactionId)).toEqual([]);
  });
});

describe("retryTransaction after the partner moved its endpoint", () => {
  test("the re-queued delivery goes to the provider's current deliveryUrl, not the one that failed", async () => {
    const { h, rx, requester, provider } = await setup("notes");
    rx.state.hang = true;
    const sent = await sendTrip(h, requester, regularTrip(requester.netid, provider.netid));
    const id = sent.body.transactionId;
    await until(async () => (await booking(h, requester, id)).lastStatus === "FAILED", 8000);
    const moved = startReceiver();
    cleanups.push(moved.stop);
    const put = await integrate(h, provider, { deliveryUrl: `${moved.url}/new-farm-in` });
    expect(put.status).toBe(200);
    const before = rx.received.length;
    expect((await h.request("GET", `/Platform.svc/retryTransaction/${id}`, { headers: { token: requester.token } })).status).toBe(200);
    const [got] = await moved.waitFor(1);
    expect(got.path).toBe("/new-farm-in");
    expect(got.json.transactionId).toBe(id);
    await until(async () => (await h.services.outbox.latest(id, "delivery"))?.status === "delivered");
    expect(rx.received.length).toBe(before);
  });
});
