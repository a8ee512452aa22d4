import { afterEach, describe, expect, test } from "bun:test";
import { createHarness, FAST_DELIVERY, type Harness } from "../../support/harness";
import { startReceiver } from "../../support/receiver";
import type { WorkerOptions } from "../../../adapters/delivery/worker";
import { integrate, parties, type Party, regularTrip, sendTrip } from "../../support/trips";

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

type Json = Record<string, any>;

/** A schedule whose automatic retry comes only after a minute: anything delivered sooner was delivered by retryTransaction. */
const SLOW_RETRY = { retryDelay: (n: number) => (n < 10 ? 60 : undefined), timeoutMs: 2000, idleMs: 50 };

/**
 * A requester with a webhook listener and a provider whose farm-in endpoint is a real server on 127.0.0.1 that
 * answers as a GNet partner's gateway does while down for maintenance (503), then accepts with its number.
 */
async function setup(delivery: Partial<WorkerOptions>, failures: number) {
  const h = createHarness({ delivery });
  cleanups.push(() => h.close());
  const farmIn = startReceiver((_r, n) => (n <= failures ? new Response("Service Unavailable: gateway down for maintenance", { status: 503 }) : Response.json({ success: true, reservationId: "WCC-9001" })));
  cleanups.push(farmIn.stop);
  const listener = startReceiver();
  cleanups.push(listener.stop);
  const { requester, provider, stranger } = await parties(h, "-FD");
  const farm = await integrate(h, provider, { deliveryUrl: `${farmIn.url}/gnet/farm-in` });
  expect(farm.status).toBe(200);
  const hook = await integrate(h, requester, { webhookUrl: `${listener.url}/events` });
  expect(hook.status).toBe(200);
  h.services.worker.start();
  return { h, farmIn, listener, requester, provider, stranger };
}

async function until<T>(read: () => Promise<T>, ok: (v: T) => boolean, timeoutMs = 8000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await read();
    if (ok(v)) return v;
    if (Date.now() > deadline) throw new Error(`condition not met in time; last: ${JSON.stringify(v).slice(0, 400)}`);
    await Bun.sleep(20);
  }
}

const gnetRead = async (h: Harness, who: Party, id: string): Promise<Json> => {
  const res = await h.request("GET", `/Platform.svc/getReservationByTransactionId/${id}/V1`, { headers: { token: who.token } });
  expect(res.status).toBe(200);
  return res.body;
};
const retry = (h: Harness, who: Party, id: string) => h.request("GET", `/Platform.svc/retryTransaction/${id}/V1`, { headers: { token: who.token } });
const descs = (r: Json) => r.changeLogs.map((c: { changeDesc: string }) => c.changeDesc) as string[];

describe("a failing delivery is visible at once and retryable at once", () => {
  test("503 → affiliateReservation FAILED (status stays BOOKING_REQUEST); retryTransaction delivers now; the 200 puts the status back; changeLogs and webhooks say both moves", async () => {
    const { h, farmIn, listener, requester, provider, stranger } = await setup(SLOW_RETRY, 1);
    const sent = await sendTrip(h, requester, regularTrip(requester.netid, provider.netid));
    expect(sent.status).toBe(200);
    const id = sent.body.transactionId;

    const failing = await until(() => gnetRead(h, requester, id), (r) => r.affiliateReservation.status === "FAILED");
    expect(farmIn.received).toHaveLength(1);
    expect(failing.status).toBe("BOOKING_REQUEST");
    expect(failing.affiliateReservation.notes).toContain("HTTP 503");
    expect(failing.transactionErrors.map((e: Json) => e.errCode)).toEqual(["DELIVERY_ATTEMPT_FAILED"]);
    expect(descs(failing)).toContainEqual(expect.stringContaining("affiliateReservation.status BOOKING_REQUEST → FAILED"));
    // Today's view says the same.
    expect(failing.data.lastStatus).toBe("BOOKING_REQUEST");
    expect(failing.data.tripPacket.affiliateReservation.status).toBe("FAILED");

    expect((await retry(h, stranger, id)).status).toBe(404);
    const started = Date.now();
    const retried = await retry(h, provider, id);
    expect(retried.status).toBe(200);
    expect(retried.text).toBe('"OK"');
    // The automatic retry is a minute away: this attempt is the retry's.
    await farmIn.waitFor(2, 5000);
    expect(Date.now() - started).toBeLessThan(5000);
    expect(farmIn.received[1].json.transactionId).toBe(id);
    expect(farmIn.received[1].json.eventId).toBe(farmIn.received[0].json.eventId);

    const back = await until(() => gnetRead(h, requester, id), (r) => r.affiliateReservation.status !== "FAILED");
    expect(back.status).toBe("BOOKING_REQUEST");
    expect(back.affiliateReservation).toMatchObject({ status: "BOOKING_REQUEST", providerResNo: "WCC-9001", notes: "" });
    expect(back.data.targetResNo).toBe("WCC-9001");
    expect(descs(back)).toContainEqual(expect.stringContaining("affiliateReservation.status FAILED → BOOKING_REQUEST"));
    expect(descs(back)).toContainEqual(expect.stringMatching(/^delivery retried now$/));

    // The requester's webhook says both moves, in order, each with the affiliate status it moved to.
    const hooks = await until(
      async () => listener.received.filter((r) => r.json?.data?.transactionId === id),
      (list) => list.some((r) => r.json.type === "booking.delivery_recovered"),
    );
    const types = hooks.map((r) => r.json.type);
    expect(types.indexOf("booking.delivery_failed")).toBeGreaterThan(-1);
    expect(types.indexOf("booking.delivery_failed")).toBeLessThan(types.indexOf("booking.delivery_recovered"));
    expect(hooks.find((r) => r.json.type === "booking.delivery_failed")!.json.data.tripPacket.affiliateReservation.status).toBe("FAILED");
    expect(hooks.find((r) => r.json.type === "booking.delivery_recovered")!.json.data.tripPacket.affiliateReservation.status).toBe("BOOKING_REQUEST");

    // Nothing pending or failing any more.
    const nothing = await retry(h, requester, id);
    expect(nothing.status).toBe(409);
    expect(nothing.body).toMatchObject({ success: false, code: "NOTHING_TO_RETRY" });
  });

  test("automatic retries go on while FAILED shows; a later success puts the status back, each move logged once", async () => {
    const { h, farmIn, requester, provider } = await setup(FAST_DELIVERY, 2);
    const id = (await sendTrip(h, requester, regularTrip(requester.netid, provider.netid))).body.transactionId;
    await farmIn.waitFor(3);
    const back = await until(() => gnetRead(h, requester, id), (r) => r.affiliateReservation.providerResNo === "WCC-9001");
    expect(back.affiliateReservation.status).toBe("BOOKING_REQUEST");
    expect(back.transactionErrors.map((e: Json) => e.errCode)).toEqual(["DELIVERY_ATTEMPT_FAILED", "DELIVERY_ATTEMPT_FAILED"]);
    expect(descs(back).filter((d) => d.includes("→ FAILED"))).toHaveLength(1);
    expect(descs(back).filter((d) => d.includes("FAILED → BOOKING_REQUEST"))).toHaveLength(1);
  });

  test("retryTransaction is 409 NOTHING_TO_RETRY only when nothing is pending or failing", async () => {
    const { h, requester, provider } = await setup(SLOW_RETRY, 0);
    // A provider without an endpoint: nothing is ever queued.
    const other = await h.registerCompany({ netid: "NOFARM-FD", coType: "IO" });
    const noFarm = await sendTrip(h, requester, regularTrip(requester.netid, other.netid));
    const none = await retry(h, requester, noFarm.body.transactionId);
    expect(none.status).toBe(409);
    expect(none.body).toMatchObject({ success: false, code: "NOTHING_TO_RETRY", message: expect.any(String) });
    // Delivered at once: nothing left either.
    const id = (await sendTrip(h, requester, regularTrip(requester.netid, provider.netid))).body.transactionId;
    await until(() => gnetRead(h, requester, id), (r) => r.affiliateReservation.providerResNo === "WCC-9001");
    expect((await retry(h, requester, id)).status).toBe(409);
    expect((await retry(h, requester, "not-a-uuid")).status).toBe(400);
  });
});
