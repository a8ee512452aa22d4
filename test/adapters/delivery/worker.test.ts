import { afterEach, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { createHarness, type Harness } from "../../support/harness";
import { startReceiver } from "../../support/receiver";
import { tempDir } from "../../support/process";
import { DeliveryWorker } from "../../../adapters/delivery/worker";
import type { DeliveryHooks, OutboxMessage } from "../../../domain/delivery/ports";
import { verifySignature } from "../../../adapters/delivery/signing";
import { createLogger } from "../../../adapters/logging";
import { OutboundGuard } from "../../../adapters/delivery/outbound-guard";

// The receivers listen on 127.0.0.1, so the guard is told to allow private targets.
const fast = { retryDelay: (n: number) => (n < 4 ? 0.05 : undefined), timeoutMs: 300, concurrency: 4, idleMs: 50, guard: new OutboundGuard({ allowPrivate: true, requireHttps: false }) };
const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

function workerFor(h: Harness, hooks: DeliveryHooks = {}) {
  const w = new DeliveryWorker(h.services.outbox, h.services.integrations, hooks, fast, createLogger("silent"));
  cleanups.push(() => w.stop());
  return w;
}

async function enqueue(h: Harness, url: string, n: number, transactionId = "tx-1", channel: "delivery" | "webhook" = "delivery", targetNetid = "ACME") {
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const eventId = crypto.randomUUID();
    ids.push(eventId);
    await h.enqueue({ eventId, channel, eventType: "trip.new", transactionId, targetNetid, url, body: JSON.stringify({ eventId, seq: i }) }, Date.now() / 1000);
  }
  return ids;
}

describe("DeliveryWorker", () => {
  test("a waiter on a shared outbox hears of an attempt another instance recorded (it reads the outbox meanwhile); alone it waits for its own", async () => {
    const h = createHarness();
    cleanups.push(() => h.close());
    const recorded = { id: 1, eventId: "e-1", status: "delivered", attempts: 1 } as unknown as OutboxMessage;
    let visibleAt = Date.now() + 300;
    const settled = async () => (Date.now() >= visibleAt ? recorded : undefined);
    const shared = new DeliveryWorker(h.services.outbox, h.services.integrations, {}, { ...fast, sharedOutbox: true }, createLogger("silent"));
    const t0 = Date.now();
    expect(await shared.waitForAttempt("e-1", 3000, settled)).toBe(recorded);
    expect(Date.now() - t0).toBeLessThan(1500);
    visibleAt = Date.now() + 300;
    const alone = new DeliveryWorker(h.services.outbox, h.services.integrations, {}, fast, createLogger("silent"));
    expect(await alone.waitForAttempt("e-1", 800, settled)).toBeUndefined();
    expect(shared.waitingEvents + alone.waitingEvents).toBe(0);
  });


  test("delivers each message once, in order per booking, with event headers and Basic auth", async () => {
    const h = createHarness();
    const c = await h.registerCompany();
    await h.services.integrations.save({ netid: c.netid, deliveryUrl: "x", deliveryAuth: { username: "ts", password: "pw" }, luggage: "notes", webhookUrl: null, webhookSecret: null, webhookVerifiedAt: null, webhookFormat: "events", acceptTripsFrom: "anyone" }, 0);
    const rx = startReceiver();
    cleanups.push(rx.stop);
    await enqueue(h, `${rx.url}/a`, 5, "tx-a", "delivery", c.netid);
    await enqueue(h, `${rx.url}/b`, 5, "tx-b", "delivery", c.netid);
    const w = workerFor(h);
    w.start();
    await rx.waitFor(10);
    await Bun.sleep(100);
    expect(rx.received).toHaveLength(10);
    for (const path of ["/a", "/b"]) expect(rx.received.filter((r) => r.path === path).map((r) => r.json.seq)).toEqual([0, 1, 2, 3, 4]);
    expect(rx.received[0].headers.authorization).toBe(`Basic ${Buffer.from("ts:pw").toString("base64")}`);
    expect(rx.received[0].headers["x-tripswitch-event-id"]).toBe(rx.received[0].json.eventId);
    await w.stop();
    expect((await h.services.outbox.forBooking("tx-a")).map((m) => m.status)).toEqual(Array(5).fill("delivered"));
  });

  test("a partner failing twice then answering gets the message once more; failures reach the hooks", async () => {
    const h = createHarness();
    const rx = startReceiver((_, n) => (n <= 2 ? new Response("busy", { status: 503 }) : Response.json({ reservationId: "P-77" })));
    cleanups.push(rx.stop);
    const failures: string[] = [];
    let reply: unknown;
    const w = workerFor(h, { attemptFailed: (_m, e) => void failures.push(e), delivered: (_m, r) => void (reply = r) });
    const [eventId] = await enqueue(h, rx.url, 1);
    w.start();
    await rx.waitFor(3);
    await Bun.sleep(100);
    expect(rx.received).toHaveLength(3);
    expect(failures).toHaveLength(2);
    expect(failures[0]).toContain("HTTP 503");
    expect(reply).toEqual({ reservationId: "P-77" });
    expect(await h.services.outbox.byEventId(eventId)).toMatchObject({ status: "delivered", attempts: 3, lastStatus: 200 });
  });

  test("a partner that never answers ends failed after the last attempt; requeue delivers once it is back", async () => {
    const h = createHarness();
    const rx = startReceiver();
    cleanups.push(rx.stop);
    rx.state.hang = true;
    const finals: boolean[] = [];
    const w = workerFor(h, { attemptFailed: (_m, _e, _at, final) => void finals.push(final) });
    const [eventId] = await enqueue(h, rx.url, 1, "tx-hang");
    w.start();
    const deadline = Date.now() + 8000;
    while ((await h.services.outbox.byEventId(eventId))?.status !== "failed" && Date.now() < deadline) await Bun.sleep(50);
    expect(await h.services.outbox.byEventId(eventId)).toMatchObject({ status: "failed", attempts: 4 });
    expect(finals).toEqual([false, false, false, true]);
    expect((await h.services.outbox.byEventId(eventId))!.lastError).toContain("no answer");

    rx.state.hang = false;
    expect(await h.requeueFailed("tx-hang", "delivery", Date.now() / 1000)).toBe(1);
    w.wake();
    const before = rx.received.length;
    await rx.waitFor(before + 1);
    await Bun.sleep(100);
    expect((await h.services.outbox.byEventId(eventId))!.status).toBe("delivered");
    expect(rx.received.length).toBe(before + 1);
  });

  test("webhooks are signed with the receiver's current secret", async () => {
    const h = createHarness();
    const c = await h.registerCompany();
    const secret = "whsec_test_secret_value";
    const rx = startReceiver();
    cleanups.push(rx.stop);
    await h.services.integrations.save({ netid: c.netid, deliveryUrl: null, deliveryAuth: null, luggage: "notes", webhookUrl: rx.url, webhookSecret: secret, webhookVerifiedAt: 1, webhookFormat: "events", acceptTripsFrom: "anyone" }, 0);
    await enqueue(h, rx.url, 2, "tx-w", "webhook", c.netid);
    workerFor(h).start();
    await rx.waitFor(2);
    for (const r of rx.received) {
      expect(verifySignature(secret, r.body, r.headers["x-tripswitch-signature"], Math.floor(Date.now() / 1000))).toBe(true);
      expect(verifySignature(secret, r.body.replace("seq", "SEQ"), r.headers["x-tripswitch-signature"], Math.floor(Date.now() / 1000))).toBe(false);
    }
  });

  test("pending messages survive a restart and are delivered exactly once", async () => {
    const dbPath = join(tempDir(), "db.sqlite");
    const rx = startReceiver(async () => {
      await Bun.sleep(30);
      return Response.json({});
    });
    cleanups.push(rx.stop);
    const first = createHarness({ dbPath });
    const ids = await enqueue(first, rx.url, 20, "tx-r");
    const w1 = new DeliveryWorker(first.services.outbox, first.services.integrations, {}, fast, createLogger("silent"));
    w1.start();
    await rx.waitFor(3);
    await w1.stop();
    await first.close();
    const deliveredBefore = rx.received.length;
    expect(deliveredBefore).toBeLessThan(20);

    const second = createHarness({ dbPath });
    const w2 = new DeliveryWorker(second.services.outbox, second.services.integrations, {}, fast, createLogger("silent"));
    w2.start();
    await rx.waitFor(20);
    await Bun.sleep(150);
    await w2.stop();
    const byEvent = new Map<string, number>();
    for (const r of rx.received) byEvent.set(r.json.eventId, (byEvent.get(r.json.eventId) ?? 0) + 1);
    expect([...byEvent.keys()].sort()).toEqual([...ids].sort());
    expect([...byEvent.values()].every((n) => n === 1)).toBe(true);
    expect(rx.received.map((r) => r.json.seq)).toEqual([...Array(20).keys()]);
    await second.close();
  });
});
