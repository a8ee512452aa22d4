import { afterEach, describe, expect, test } from "bun:test";
import { createHarness, FAST_DELIVERY, ManualClock } from "../../support/harness";
import { startReceiver, type Received } from "../../support/receiver";
import { parties, providerUpdate, regularTrip, sendTrip } from "../../support/trips";
import { verifySignature } from "../../../adapters/delivery/signing";

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function setup(clock?: ManualClock) {
  const h = createHarness({ delivery: FAST_DELIVERY, clock });
  cleanups.push(() => h.close());
  const rx = startReceiver();
  cleanups.push(rx.stop);
  const { requester, provider, stranger } = await parties(h);
  const auth = { authorization: `Bearer ${requester.jwt}` };
  const put = await h.request("PUT", "/api/company/integration", { headers: auth, body: { webhookUrl: `${rx.url}/hooks` } });
  const secret: string = put.body.data.webhookSecret;
  h.services.worker.start();
  return { h, rx, requester, provider, stranger, auth, secret };
}

const now = () => Math.floor(Date.now() / 1000);
const verified = (secret: string, r: Received) => verifySignature(secret, r.body, r.headers["x-tripswitch-signature"], now());

describe("webhooks to the requester", () => {
  test("every change sends the booking's new state, signed; a tampered body fails verification", async () => {
    const { h, rx, requester, provider, secret } = await setup();
    const sent = await sendTrip(h, requester, regularTrip(requester.netid, provider.netid));
    const id = sent.body.transactionId;
    expect((await providerUpdate(h, provider, id, { status: "CONFIRMED", providerResNo: "ACME-9" })).status).toBe(200);
    expect((await providerUpdate(h, provider, id, { status: "ASSIGNED", chauffeur: { firstName: "Sam", lastName: "Lee" } })).status).toBe(200);
    const got = await rx.waitFor(3);
    expect(got.map((r) => r.json.type)).toEqual(["booking.created", "booking.status_changed", "booking.status_changed"]);
    for (const r of got) {
      expect(verified(secret, r)).toBe(true);
      expect(verified(secret, { ...r, body: r.body.replace("BOOKING", "BOOKINX") })).toBe(false);
      expect(r.headers["x-tripswitch-event-id"]).toBe(r.json.eventId);
      expect(r.json.data.transactionId).toBe(id);
    }
    expect(got.map((r) => r.json.data.lastStatus)).toEqual(["BOOKING_REQUEST", "CONFIRMED", "ASSIGNED"]);
    expect(got[1].json.data.targetResNo).toBe("ACME-9");
    expect(got[2].json.data.tripPacket.chauffeur).toMatchObject({ firstName: "Sam" });
  });

  test("the delivery log lists the owner's deliveries, newest first; replay re-sends with the same event id", async () => {
    const { h, rx, requester, provider, stranger, auth, secret } = await setup();
    await sendTrip(h, requester, regularTrip(requester.netid, provider.netid));
    const [first] = await rx.waitFor(1);
    let list = await h.request("GET", "/api/webhooks/deliveries", { headers: auth });
    for (let i = 0; i < 50 && list.body.data.items[0]?.status !== "delivered"; i++) {
      await Bun.sleep(20);
      list = await h.request("GET", "/api/webhooks/deliveries", { headers: auth });
    }
    expect(list.body.data.total).toBe(1);
    const item = list.body.data.items[0];
    expect(item).toMatchObject({ eventId: first.json.eventId, eventType: "booking.created", status: "delivered", attempts: 1, lastStatus: 200 });

    const strangerAuth = { authorization: `Bearer ${stranger.jwt}` };
    expect((await h.request("GET", "/api/webhooks/deliveries", { headers: strangerAuth })).body.data.total).toBe(0);
    const foreign = await h.request("POST", `/api/webhooks/deliveries/${item.id}/replay`, { headers: strangerAuth });
    const unknown = await h.request("POST", `/api/webhooks/deliveries/99999/replay`, { headers: strangerAuth });
    expect(foreign.status).toBe(404);
    expect(foreign.text).toBe(unknown.text);

    const replay = await h.request("POST", `/api/webhooks/deliveries/${item.id}/replay`, { headers: auth });
    expect(replay.status).toBe(200);
    const [, again] = await rx.waitFor(2);
    expect(again.json.eventId).toBe(first.json.eventId);
    expect(again.body).toBe(first.body);
    expect(verified(secret, again)).toBe(true);
  });

  test("a delivery is replayed at most 5 times an hour (429 REPLAY_LIMITED with Retry-After); a stranger's attempts spend none", async () => {
    const clock = new ManualClock(Math.floor(Date.now() / 1000));
    const { h, rx, requester, provider, stranger, auth } = await setup(clock);
    await sendTrip(h, requester, regularTrip(requester.netid, provider.netid));
    await sendTrip(h, requester, regularTrip(requester.netid, provider.netid));
    await rx.waitFor(2);
    const [second, first] = (await h.request("GET", "/api/webhooks/deliveries", { headers: auth })).body.data.items;
    const replay = (id: number, headers = auth) => h.request("POST", `/api/webhooks/deliveries/${id}/replay`, { headers });
    for (let i = 0; i < 3; i++) expect((await replay(first.id, { authorization: `Bearer ${stranger.jwt}` })).status).toBe(404);
    for (let i = 0; i < 5; i++) {
      expect((await replay(first.id)).status).toBe(200);
      await rx.waitFor(3 + i);
    }
    const refused = await replay(first.id);
    expect(refused.status).toBe(429);
    expect(refused.body).toMatchObject({ success: false, code: "REPLAY_LIMITED" });
    expect(Number(refused.headers.get("retry-after"))).toBe(720);
    await Bun.sleep(200);
    expect(rx.received.filter((r) => r.json.eventId === first.eventId)).toHaveLength(6);
    // Each delivery has its own count, and one more replay comes back every 12 minutes.
    expect((await replay(second.id)).status).toBe(200);
    clock.advance(720);
    expect((await replay(first.id)).status).toBe(200);
    expect((await replay(first.id)).status).toBe(429);
  });

  test("a rotated secret signs the next deliveries; the old one no longer verifies", async () => {
    const { h, rx, requester, provider, auth, secret } = await setup();
    const rotated = await h.request("POST", "/api/company/integration/webhook-secret", { headers: auth });
    const fresh: string = rotated.body.data.webhookSecret;
    await sendTrip(h, requester, regularTrip(requester.netid, provider.netid));
    const [got] = await rx.waitFor(1);
    expect(verified(fresh, got)).toBe(true);
    expect(verified(secret, got)).toBe(false);
  });

  test("a failing webhook receiver is retried and its failures never touch the booking", async () => {
    const h = createHarness({ delivery: FAST_DELIVERY });
    cleanups.push(() => h.close());
    const rx = startReceiver((_r, n) => (n === 1 ? new Response("no", { status: 500 }) : Response.json({})));
    cleanups.push(rx.stop);
    const { requester, provider } = await parties(h);
    await h.request("PUT", "/api/company/integration", { headers: { authorization: `Bearer ${requester.jwt}` }, body: { webhookUrl: rx.url } });
    h.services.worker.start();
    const sent = await sendTrip(h, requester, regularTrip(requester.netid, provider.netid));
    const got = await rx.waitFor(2);
    expect(got[0].json.eventId).toBe(got[1].json.eventId);
    const data = (await h.request("GET", `/api/reservation/${sent.body.transactionId}`, { headers: { authorization: `Bearer ${requester.jwt}` } })).body.data;
    expect(data.tripPacket.transactionErrors).toEqual([]);
  });
});
