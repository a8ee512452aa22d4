import { afterEach, describe, expect, test } from "bun:test";
import { createHarness, FAST_DELIVERY, ManualClock } from "../../support/harness";
import { startReceiver, type Received } from "../../support/receiver";
import { integrate, parties, providerUpdate, regularTrip, sendTrip } from "../../support/trips";
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

  test("a replay asked while an earlier send of the same delivery is still unanswered is sent again, not taken for done", async () => {
    const { h, rx, requester, provider, auth } = await setup();
    await sendTrip(h, requester, regularTrip(requester.netid, provider.netid));
    await rx.waitFor(1);
    const [item] = (await h.request("GET", "/api/webhooks/deliveries", { headers: auth })).body.data.items;
    // The receiver holds its answer to the replay: the replay after it is asked while that send is under way.
    let release = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    rx.state.respond = async (_r, n) => {
      if (n === 2) await held;
      return Response.json({});
    };
    expect((await h.request("POST", `/api/webhooks/deliveries/${item.id}/replay`, { headers: auth })).status).toBe(200);
    await rx.waitFor(2);
    expect((await h.request("POST", `/api/webhooks/deliveries/${item.id}/replay`, { headers: auth })).status).toBe(200);
    release();
    const got = await rx.waitFor(3);
    expect(got.map((r) => r.json.eventId)).toEqual([item.eventId, item.eventId, item.eventId]);
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
    await integrate(h, requester, { webhookUrl: rx.url });
    h.services.worker.start();
    const sent = await sendTrip(h, requester, regularTrip(requester.netid, provider.netid));
    const got = await rx.waitFor(2);
    expect(got[0].json.eventId).toBe(got[1].json.eventId);
    const data = (await h.request("GET", `/api/reservation/${sent.body.transactionId}`, { headers: { authorization: `Bearer ${requester.jwt}` } })).body.data;
    expect(data.tripPacket.transactionErrors).toEqual([]);
  });
});

describe("a new webhook URL is verified with a signed challenge before anything is sent there", () => {
  test("a receiver on the operator's own machine (a private address, allowed only under OUTBOUND_ALLOW_PRIVATE) is trusted without a challenge", async () => {
    const h = createHarness({ delivery: FAST_DELIVERY });
    cleanups.push(() => h.close());
    const rx = startReceiver();
    cleanups.push(rx.stop);
    rx.state.answerChallenges = false;
    const { requester, provider } = await parties(h);
    const auth = { authorization: `Bearer ${requester.jwt}` };
    h.services.worker.start();
    // More URL changes than an hour's challenges: none is spent on a trusted receiver.
    for (let i = 0; i < 11; i++) expect((await h.request("PUT", "/api/company/integration", { headers: auth, body: { webhookUrl: `${rx.url}/hooks/${i}` } })).status).toBe(200);
    const put = await h.request("PUT", "/api/company/integration", { headers: auth, body: { webhookUrl: `${rx.url}/hooks` } });
    expect(put.status).toBe(200);
    expect(put.body.data).toMatchObject({ webhookUrl: `${rx.url}/hooks`, webhookVerified: true });
    expect(put.body.data.webhookVerification).toBeUndefined();
    const verify = await h.request("POST", "/api/company/integration/webhook-verify", { headers: auth });
    expect(verify.body.data.webhookVerified).toBe(true);
    const sent = await sendTrip(h, requester, regularTrip(requester.netid, provider.netid));
    expect(sent.status).toBe(200);
    const [got] = await rx.waitFor(1);
    expect(got.json).toMatchObject({ type: "booking.created" });
    expect(rx.challenges).toHaveLength(0);
  });

  test("an endpoint that does not echo the challenge gets no booking; once it does (webhook-verify), webhooks flow", async () => {
    const h = createHarness({ delivery: FAST_DELIVERY, challengePrivateWebhooks: true });
    cleanups.push(() => h.close());
    const rx = startReceiver();
    cleanups.push(rx.stop);
    rx.state.answerChallenges = false;
    const { requester, provider } = await parties(h);
    const auth = { authorization: `Bearer ${requester.jwt}` };
    h.services.worker.start();
    const put = await h.request("PUT", "/api/company/integration", { headers: auth, body: { webhookUrl: `${rx.url}/hooks` } });
    expect(put.status).toBe(200);
    expect(put.body.data).toMatchObject({ webhookUrl: `${rx.url}/hooks`, webhookVerified: false, webhookVerification: expect.stringContaining("did not echo the challenge") });
    const secret: string = put.body.data.webhookSecret;
    // The challenge: a signed webhook.verify event (v1 and v2) carrying a random challenge, and nothing else.
    expect(rx.challenges).toHaveLength(1);
    const [challenge] = rx.challenges;
    expect(challenge.json).toEqual({ eventId: challenge.headers["x-tripswitch-event-id"], type: "webhook.verify", createdAt: expect.any(Number), challenge: expect.stringMatching(/^[A-Za-z0-9_-]{32}$/) });
    expect(verifySignature(secret, challenge.body, challenge.headers["x-tripswitch-signature"], now(), 300, challenge.json.eventId)).toBe(true);

    const sent = await sendTrip(h, requester, regularTrip(requester.netid, provider.netid));
    expect((await providerUpdate(h, provider, sent.body.transactionId, { status: "CONFIRMED" })).status).toBe(200);
    await Bun.sleep(400);
    expect(rx.received).toHaveLength(0);
    expect((await h.request("GET", "/api/webhooks/deliveries", { headers: auth })).body.data.total).toBe(0);
    expect((await h.request("GET", "/api/company/integration", { headers: auth })).body.data.webhookVerified).toBe(false);

    rx.state.answerChallenges = true;
    const verify = await h.request("POST", "/api/company/integration/webhook-verify", { headers: auth });
    expect(verify.status).toBe(200);
    expect(verify.body.data.webhookVerified).toBe(true);
    expect(verify.body.data.webhookVerification).toBeUndefined();
    expect(rx.challenges).toHaveLength(2);
    expect(rx.challenges[1].json.challenge).not.toBe(challenge.json.challenge);
    expect((await providerUpdate(h, provider, sent.body.transactionId, { status: "ASSIGNED" })).status).toBe(200);
    const [got] = await rx.waitFor(1);
    expect(got.json).toMatchObject({ type: "booking.status_changed", data: { lastStatus: "ASSIGNED" } });
    expect(verified(secret, got)).toBe(true);
  });

  test("changing the URL needs a new challenge: messages queued for the old one are refused at send, none go to the new one", async () => {
    const h = createHarness({ delivery: FAST_DELIVERY, challengePrivateWebhooks: true });
    cleanups.push(() => h.close());
    const before = startReceiver();
    const after = startReceiver();
    cleanups.push(before.stop, after.stop);
    after.state.answerChallenges = false;
    const { requester, provider } = await parties(h);
    const auth = { authorization: `Bearer ${requester.jwt}` };
    expect((await h.request("PUT", "/api/company/integration", { headers: auth, body: { webhookUrl: before.url } })).body.data.webhookVerified).toBe(true);
    // Queued for the verified URL while the worker is stopped, then the URL changes to one that does not answer.
    const sent = await sendTrip(h, requester, regularTrip(requester.netid, provider.netid));
    expect((await h.request("PUT", "/api/company/integration", { headers: auth, body: { webhookUrl: after.url } })).body.data.webhookVerified).toBe(false);
    expect((await providerUpdate(h, provider, sent.body.transactionId, { status: "CONFIRMED" })).status).toBe(200);
    h.services.worker.start();
    const deadline = Date.now() + 5000;
    let items: Array<{ lastError: string | null; attempts: number }> = [];
    while (Date.now() < deadline) {
      items = (await h.request("GET", "/api/webhooks/deliveries", { headers: auth })).body.data.items;
      if (items.length && items.every((m) => m.attempts > 0)) break;
      await Bun.sleep(50);
    }
    expect(items).toHaveLength(1);
    expect(items[0].lastError).toContain("not the company's verified webhook URL");
    expect(before.received).toHaveLength(0);
    expect(after.received).toHaveLength(0);
    // The same URL set again while unverified is challenged again; clearing it needs none.
    after.state.answerChallenges = true;
    expect((await h.request("PUT", "/api/company/integration", { headers: auth, body: { webhookUrl: after.url } })).body.data.webhookVerified).toBe(true);
    expect(after.challenges).toHaveLength(2);
    const cleared = await h.request("PUT", "/api/company/integration", { headers: auth, body: { webhookUrl: null } });
    expect(cleared.body.data).toMatchObject({ webhookUrl: null, webhookVerified: false });
    expect(after.challenges).toHaveLength(2);
  });

  test("without a webhook URL verify is 409 NO_WEBHOOK_URL; at most 10 challenges an hour (429 with Retry-After)", async () => {
    const h = createHarness({ delivery: FAST_DELIVERY, challengePrivateWebhooks: true });
    cleanups.push(() => h.close());
    const rx = startReceiver();
    cleanups.push(rx.stop);
    const { requester, stranger } = await parties(h);
    const auth = { authorization: `Bearer ${requester.jwt}` };
    const none = await h.request("POST", "/api/company/integration/webhook-verify", { headers: auth });
    expect(none.status).toBe(409);
    expect(none.body).toMatchObject({ success: false, code: "NO_WEBHOOK_URL" });
    expect((await h.request("PUT", "/api/company/integration", { headers: auth, body: { webhookUrl: rx.url } })).status).toBe(200);
    for (let i = 0; i < 9; i++) expect((await h.request("POST", "/api/company/integration/webhook-verify", { headers: auth })).status).toBe(200);
    const refused = await h.request("POST", "/api/company/integration/webhook-verify", { headers: auth });
    expect(refused.status).toBe(429);
    expect(refused.body.code).toBe("RATE_LIMITED");
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    const changed = await h.request("PUT", "/api/company/integration", { headers: auth, body: { webhookUrl: `${rx.url}/other` } });
    expect(changed.status).toBe(429);
    expect((await h.request("GET", "/api/company/integration", { headers: auth })).body.data.webhookUrl).toBe(rx.url);
    expect(rx.challenges).toHaveLength(10);
    // Another company's challenges are its own.
    expect((await integrate(h, stranger, { webhookUrl: rx.url })).body.data.webhookVerified).toBe(true);
  });
});
