import { afterEach, describe, expect, test } from "bun:test";
import { createHarness, type Harness } from "../../support/harness";
import { startReceiver } from "../../support/receiver";
import { party, regularTrip, sendTrip } from "../../support/trips";

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function integrate(h: Harness, jwt: string, body: Record<string, unknown>) {
  const put = await h.request("PUT", "/api/company/integration", { headers: { authorization: `Bearer ${jwt}` }, body });
  expect(put.status).toBe(200);
}

describe("companies share the delivery workers fairly", () => {
  test("four companies whose webhook endpoints answer slowly (under the timeout) do not delay another company's delivery", async () => {
    // Production's worker count and timeout; the slow endpoints answer after 4 s, "healthy" by the timeout.
    const h = createHarness({ delivery: { concurrency: 8, timeoutMs: 10_000, idleMs: 1000, retryDelay: (n) => (n < 10 ? 1 : undefined) } });
    cleanups.push(() => h.close());
    const provider = await party(h, "SLOW-DEST", "IO");
    let slowOpen = 0;
    let slowOpenMost = 0;
    for (let i = 0; i < 4; i++) {
      const slow = startReceiver(async () => {
        slowOpenMost = Math.max(slowOpenMost, ++slowOpen);
        await Bun.sleep(4000);
        slowOpen--;
        return Response.json({});
      });
      cleanups.push(slow.stop);
      const company = await party(h, `SLOW-HOOKS-${i}`, "CO");
      await integrate(h, company.jwt, { webhookUrl: `${slow.url}/hooks` });
      // Four bookings each: sixteen slow webhooks queued before the healthy company's trip.
      for (let n = 0; n < 4; n++) expect((await sendTrip(h, company, regularTrip(company.netid, provider.netid))).status).toBe(200);
    }
    let arrivedAt = 0;
    const good = startReceiver(() => {
      arrivedAt ||= performance.now();
      return Response.json({ success: true, reservationId: "FINE-1" });
    });
    cleanups.push(good.stop);
    const fine = await party(h, "FINE-DEST", "IO");
    const booker = await party(h, "FINE-BOOKER", "CO");
    await integrate(h, fine.jwt, { deliveryUrl: `${good.url}/farm-in` });
    h.services.worker.start();
    // The slow endpoints now hold what they can of the workers.
    const deadline = Date.now() + 3000;
    while (slowOpen < 4 && Date.now() < deadline) await Bun.sleep(20);
    expect(slowOpen).toBeGreaterThanOrEqual(4);
    const sentAt = performance.now();
    const sent = await sendTrip(h, booker, regularTrip(booker.netid, fine.netid, { submitMode: "WAIT" }));
    const answeredMs = performance.now() - sentAt;
    expect(sent.status).toBe(200);
    expect(sent.body.reservationId).toBe("FINE-1");
    expect(arrivedAt - sentAt).toBeLessThan(1000);
    expect(answeredMs).toBeLessThan(1000);
    // The slow companies together hold at most what leaves a reserve free.
    expect(slowOpenMost).toBeLessThanOrEqual(7);
    console.log(`healthy delivery after ${Math.round(arrivedAt - sentAt)} ms, WAIT answered in ${Math.round(answeredMs)} ms; slow attempts open at most ${slowOpenMost}`);
  }, 30_000);

  test("answers slower than half the timeout count against the target: after five in a row its circuit opens", async () => {
    const h = createHarness({ delivery: { concurrency: 8, timeoutMs: 1000, idleMs: 50, retryDelay: (n) => (n < 10 ? 0.05 : undefined) } });
    cleanups.push(() => h.close());
    const slow = startReceiver(async () => {
      await Bun.sleep(600);
      return Response.json({ success: true });
    });
    cleanups.push(slow.stop);
    const requester = await party(h, "SLOW-REQ", "CO");
    const provider = await party(h, "SLOW-FARM", "IO");
    await integrate(h, provider.jwt, { deliveryUrl: `${slow.url}/farm-in` });
    h.services.worker.start();
    for (let i = 0; i < 8; i++) expect((await sendTrip(h, requester, regularTrip(requester.netid, provider.netid))).status).toBe(200);
    const deadline = Date.now() + 8000;
    while (slow.received.length < 5 && Date.now() < deadline) await Bun.sleep(20);
    await Bun.sleep(1000);
    const seen = slow.received.length;
    expect(seen).toBeGreaterThanOrEqual(5);
    expect(seen).toBeLessThan(8);
    // Open for 30 s: nothing more reaches the slow partner, and its pending messages wait without spending attempts.
    await Bun.sleep(800);
    expect(slow.received.length).toBe(seen);
    const pending = (await h.services.outbox.list(provider.netid, "delivery", 10, 0)).items.filter((m) => m.status === "pending");
    expect(pending.length).toBe(8 - seen);
    expect(pending.every((m) => m.attempts === 0 && m.nextAttemptAt > Date.now() / 1000 + 20)).toBe(true);
  }, 20_000);
});
