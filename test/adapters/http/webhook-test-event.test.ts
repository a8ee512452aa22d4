import { afterEach, describe, expect, test } from "bun:test";
import { createHarness, FAST_DELIVERY, ManualClock } from "../../support/harness";
import { startReceiver, type Received } from "../../support/receiver";
import { verifySignature } from "../../../adapters/delivery/signing";
import { pruneExpired } from "../../../adapters/sqlite/retention";

const ON_POSTGRES = process.env.TRIPSWITCH_TEST_DB === "postgres";
const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** A company with a webhook URL on a loopback receiver (trusted at once), and a stranger; the worker runs. */
async function setup(options: { respond?: Parameters<typeof startReceiver>[0]; clock?: ManualClock; retrySeconds?: number } = {}) {
  const delivery = options.retrySeconds ? { ...FAST_DELIVERY, retryDelay: (n: number) => (n < 4 ? options.retrySeconds : undefined) } : FAST_DELIVERY;
  const h = createHarness({ delivery, clock: options.clock });
  cleanups.push(() => h.close());
  const rx = startReceiver(options.respond);
  cleanups.push(rx.stop);
  const c = await h.registerCompany();
  const auth = { authorization: `Bearer ${await h.coreToken(c.netid, c.password)}` };
  const s = await h.registerCompany();
  const strangerAuth = { authorization: `Bearer ${await h.coreToken(s.netid, s.password)}` };
  const put = await h.request("PUT", "/api/company/integration", { headers: auth, body: { webhookUrl: `${rx.url}/hooks` } });
  expect(put.body.data.webhookVerified).toBe(true);
  h.services.worker.start();
  return { h, rx, netid: c.netid, auth, strangerAuth, secret: put.body.data.webhookSecret as string };
}

const verified = (secret: string, r: Received) => verifySignature(secret, r.body, r.headers["x-tripswitch-signature"], Math.floor(Date.now() / 1000));

describe("POST /api/webhooks/test sends a signed ping through the delivery path", () => {
  test("the receiver gets a signed ping; the answer is the delivery with the request sent and the answer received", async () => {
    const { h, rx, netid, auth, secret } = await setup({ respond: () => Response.json({ pong: true }, { headers: { "x-receiver": "yes" } }) });
    const res = await h.request("POST", "/api/webhooks/test", { headers: auth });
    expect(res.status).toBe(200);
    const [got] = await rx.waitFor(1);
    expect(got.headers["x-tripswitch-event-type"]).toBe("ping");
    expect(got.json).toMatchObject({ type: "ping", data: { netid } });
    expect(got.headers["x-tripswitch-signature"]).toMatch(/^t=\d+,v1=[0-9a-f]{64},v2=[0-9a-f]{64}$/);
    expect(verified(secret, got)).toBe(true);

    const d = res.body.data;
    expect(d).toMatchObject({ eventId: got.json.eventId, eventType: "ping", transactionId: "", status: "delivered", attempts: 1, lastStatus: 200, nextRetryAt: null, url: `${rx.url}/hooks` });
    expect(d.body).toBe(got.body);
    expect(d.attemptLog).toHaveLength(1);
    const [attempt] = d.attemptLog;
    expect(attempt.response).toEqual({ status: 200, body: '{"pong":true}', truncated: false });
    expect(attempt.error).toBeNull();
    expect(attempt.durationMs).toBeGreaterThanOrEqual(0);
    // The headers recorded are the ones the receiver got, the signature included.
    expect(attempt.request.headers["x-tripswitch-signature"]).toBe(got.headers["x-tripswitch-signature"]);
    expect(attempt.request.headers["x-tripswitch-event-id"]).toBe(got.json.eventId);
    expect(attempt.request.headers["content-length"]).toBe(String(Buffer.byteLength(got.body)));
    expect(Object.keys(attempt.request.headers).map((k) => k.toLowerCase())).not.toContain("authorization");
    expect(res.text).not.toContain(secret);

    const detail = await h.request("GET", `/api/webhooks/deliveries/${d.id}`, { headers: auth });
    expect(detail.status).toBe(200);
    expect(detail.body.data).toEqual(d);
    const list = await h.request("GET", "/api/webhooks/deliveries", { headers: auth });
    expect(list.body.data.items).toEqual([expect.objectContaining({ id: d.id, eventType: "ping", transactionId: "", status: "delivered", nextRetryAt: null })]);
    expect(list.body.data.items[0].attemptLog).toBeUndefined();
  });

  test("an error answer is recorded (its first 4 KiB) and the delivery waits for its retry, shown as nextRetryAt", async () => {
    const big = "x".repeat(10_000);
    const { h, auth } = await setup({ respond: () => new Response(`oops ${big}`, { status: 503 }), retrySeconds: 600 });
    const before = Math.floor(Date.now() / 1000);
    const res = await h.request("POST", "/api/webhooks/test", { headers: auth });
    expect(res.status).toBe(200);
    const d = res.body.data;
    expect(d).toMatchObject({ status: "pending", attempts: 1, lastStatus: 503 });
    expect(d.lastError).toContain("HTTP 503");
    expect(d.nextRetryAt).toBeGreaterThanOrEqual(before + 599);
    expect(d.nextRetryAt).toBeLessThanOrEqual(Math.ceil(Date.now() / 1000) + 601);
    const [attempt] = d.attemptLog;
    expect(attempt.response.status).toBe(503);
    expect(attempt.response.body).toBe(`oops ${big}`.slice(0, 4096));
    expect(attempt.response.truncated).toBe(true);
    expect(attempt.error).toContain("HTTP 503");
    const list = await h.request("GET", "/api/webhooks/deliveries", { headers: auth });
    expect(list.body.data.items[0].nextRetryAt).toBe(d.nextRetryAt);
  });

  test("a dead endpoint: no answer recorded, the network error, and the next retry time", async () => {
    const { h, rx, auth } = await setup({ retrySeconds: 300 });
    rx.stop();
    const res = await h.request("POST", "/api/webhooks/test", { headers: auth });
    expect(res.status).toBe(200);
    const d = res.body.data;
    expect(d).toMatchObject({ status: "pending", attempts: 1, lastStatus: null });
    expect(d.nextRetryAt).toBeGreaterThan(Math.floor(Date.now() / 1000) + 250);
    expect(d.attemptLog[0]).toMatchObject({ response: null, error: "connection failed" });
    expect(d.attemptLog[0].request.headers["x-tripswitch-event-type"]).toBe("ping");
  });

  test("without a webhook URL: 409 NO_WEBHOOK_URL; before the URL answered its challenge: 409 WEBHOOK_NOT_VERIFIED, nothing sent", async () => {
    const h = createHarness({ delivery: FAST_DELIVERY, challengePrivateWebhooks: true });
    cleanups.push(() => h.close());
    const rx = startReceiver();
    cleanups.push(rx.stop);
    rx.state.answerChallenges = false;
    const c = await h.registerCompany();
    const auth = { authorization: `Bearer ${await h.coreToken(c.netid, c.password)}` };
    h.services.worker.start();
    const none = await h.request("POST", "/api/webhooks/test", { headers: auth });
    expect(none.status).toBe(409);
    expect(none.body).toMatchObject({ success: false, code: "NO_WEBHOOK_URL" });
    const put = await h.request("PUT", "/api/company/integration", { headers: auth, body: { webhookUrl: `${rx.url}/hooks` } });
    expect(put.body.data.webhookVerified).toBe(false);
    const unverified = await h.request("POST", "/api/webhooks/test", { headers: auth });
    expect(unverified.status).toBe(409);
    expect(unverified.body).toMatchObject({ success: false, code: "WEBHOOK_NOT_VERIFIED" });
    expect(unverified.body.message).toContain("challenge");
    await Bun.sleep(100);
    expect(rx.received).toHaveLength(0);
    expect((await h.request("GET", "/api/webhooks/deliveries", { headers: auth })).body.data.total).toBe(0);
    expect((await h.request("POST", "/api/webhooks/test")).status).toBe(401);
  });

  test("at most 10 test events per company an hour: then 429 WEBHOOK_TEST_LIMITED with Retry-After; other companies keep theirs", async () => {
    const clock = new ManualClock(Math.floor(Date.now() / 1000));
    const { h, rx, auth, strangerAuth } = await setup({ clock });
    for (let i = 0; i < 10; i++) expect((await h.request("POST", "/api/webhooks/test", { headers: auth })).status).toBe(200);
    const refused = await h.request("POST", "/api/webhooks/test", { headers: auth });
    expect(refused.status).toBe(429);
    expect(refused.body).toMatchObject({ success: false, code: "WEBHOOK_TEST_LIMITED" });
    expect(Number(refused.headers.get("retry-after"))).toBe(360);
    expect(rx.received).toHaveLength(10);
    // The stranger has no URL: its own check answers, not the other company's budget.
    expect((await h.request("POST", "/api/webhooks/test", { headers: strangerAuth })).body.code).toBe("NO_WEBHOOK_URL");
    clock.advance(360);
    expect((await h.request("POST", "/api/webhooks/test", { headers: auth })).status).toBe(200);
    expect((await h.request("POST", "/api/webhooks/test", { headers: auth })).status).toBe(429);
  });
});

describe("GET /api/webhooks/deliveries/{id}", () => {
  test("another company's delivery, an unknown id and a malformed one are the same 404 DELIVERY_NOT_FOUND", async () => {
    const { h, auth, strangerAuth } = await setup();
    const { id } = (await h.request("POST", "/api/webhooks/test", { headers: auth })).body.data;
    const foreign = await h.request("GET", `/api/webhooks/deliveries/${id}`, { headers: strangerAuth });
    const unknown = await h.request("GET", `/api/webhooks/deliveries/${id + 1000}`, { headers: strangerAuth });
    expect(foreign.status).toBe(404);
    expect(foreign.body).toMatchObject({ success: false, code: "DELIVERY_NOT_FOUND" });
    expect(foreign.text).toBe(unknown.text);
    for (const bad of ["abc", "-1", "1.5"]) expect((await h.request("GET", `/api/webhooks/deliveries/${bad}`, { headers: auth })).body.code).toBe("DELIVERY_NOT_FOUND");
    expect((await h.request("GET", `/api/webhooks/deliveries/${id}`)).status).toBe(401);
  });

  test("a replay adds attempts; each records its own signature; the log keeps the newest 20", async () => {
    const { h, rx, auth } = await setup();
    const { id } = (await h.request("POST", "/api/webhooks/test", { headers: auth })).body.data;
    // Requeue directly past the replay budget: the log bound is the outbox's, not the route's.
    for (let i = 0; i < 21; i++) {
      await h.services.outbox.requeue(id, Date.now() / 1000);
      h.services.worker.wake();
      await rx.waitFor(i + 2);
      // The attempt is recorded after the answer arrives: the next requeue waits for it (bounded, generously for a busy machine).
      const deadline = Date.now() + 15_000;
      while ((await h.services.outbox.get(id))!.status !== "delivered" && Date.now() < deadline) await Bun.sleep(10);
    }
    const detail = (await h.request("GET", `/api/webhooks/deliveries/${id}`, { headers: auth })).body.data;
    expect(detail.attemptLog).toHaveLength(20);
    expect(await h.count("delivery_attempts")).toBe(20);
    const newest = rx.received.at(-1)!;
    expect(detail.attemptLog[0].request.headers["x-tripswitch-signature"]).toBe(newest.headers["x-tripswitch-signature"]);
  });

  test("recorded attempts go with their delivery when retention prunes it", async () => {
    const { h, auth } = await setup();
    const { id } = (await h.request("POST", "/api/webhooks/test", { headers: auth })).body.data;
    expect(await h.count("delivery_attempts")).toBe(1);
    if (ON_POSTGRES) await h.rows("DELETE FROM outbox_messages WHERE status = 'delivered' AND id = ?", id);
    else expect(pruneExpired(h.db.$client, Math.floor(Date.now() / 1000) + 8 * 86400).outbox_messages).toBe(1);
    expect(await h.count("delivery_attempts")).toBe(0);
    expect((await h.request("GET", `/api/webhooks/deliveries/${id}`, { headers: auth })).status).toBe(404);
  });
});
