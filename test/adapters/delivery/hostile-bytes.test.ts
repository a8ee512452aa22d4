import { afterEach, describe, expect, test } from "bun:test";
import { createHarness, type Harness } from "../../support/harness";
import { startReceiver } from "../../support/receiver";
import { integrate, parties, type Party, regularTrip, sendTrip } from "../../support/trips";
import { DeliveryWorker } from "../../../adapters/delivery/worker";
import { OutboundGuard } from "../../../adapters/delivery/outbound-guard";
import { storableText, storableValue } from "../../../adapters/delivery/storable-text";
import { createLogger } from "../../../adapters/logging";

// docs/security.md#delivery-and-limits: hostile bytes never wedge a delivery, on SQLite and on PostgreSQL (TRIPSWITCH_TEST_DB=postgres).
const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

type Json = Record<string, any>;
const NUL = String.fromCharCode(0);
/** Three attempts 50 ms apart, then FAILED. */
const THREE_TRIES = { retryDelay: (n: number) => (n < 3 ? 0.05 : undefined), timeoutMs: 1000, idleMs: 50 };

async function until<T>(read: () => Promise<T>, ok: (v: T) => boolean, timeoutMs = 8000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await read();
    if (ok(v)) return v;
    if (Date.now() > deadline) throw new Error(`condition not met in time; last: ${JSON.stringify(v).slice(0, 400)}`);
    await Bun.sleep(20);
  }
}

const gnetRead = async (h: Harness, who: Party, id: string): Promise<Json> =>
  (await h.request("GET", `/Platform.svc/getReservationByTransactionId/${id}/V1`, { headers: { token: who.token } })).body;

describe("text from partners and receivers is stored without the characters a database refuses", () => {
  test("storableText drops NUL and C0 controls, keeps tab/newline, replaces lone surrogates", () => {
    expect(storableText(`a${NUL}b\u0001c\td\ne`)).toBe("abc\td\ne");
    expect(storableText("x\ud800y\udc00z")).toBe("x\ufffdy\ufffdz");
    expect(storableText("ok 😀")).toBe("ok 😀");
    expect(storableValue({ [`k${NUL}`]: [`v${NUL}`, 1, null] })).toEqual({ k: ["v", 1, null] });
  });

  test("a farm-in reply with NUL bytes and lone surrogates: the attempt is recorded once and the booking proceeds", async () => {
    const h = createHarness({ delivery: THREE_TRIES });
    cleanups.push(() => h.close());
    // Raw NUL bytes inside the JSON text, an escaped NUL and an escaped lone surrogate.
    const farmIn = startReceiver(
      () => new Response(`{"success":true,"reservationId":"WCC-${NUL}77","message":"ok\\u0000 \\ud800 ${NUL}"}`, { headers: { "content-type": "application/json" } }),
    );
    cleanups.push(farmIn.stop);
    const { requester, provider } = await parties(h, "-NUL");
    expect((await integrate(h, provider, { deliveryUrl: `${farmIn.url}/farm-in` })).status).toBe(200);
    h.services.worker.start();
    const id = (await sendTrip(h, requester, regularTrip(requester.netid, provider.netid))).body.transactionId;
    const read = await until(() => gnetRead(h, requester, id), (r) => r.affiliateReservation?.providerResNo === "WCC-77");
    expect(read.affiliateReservation.status).toBe("BOOKING_REQUEST");
    await Bun.sleep(300);
    // Delivered at the first attempt: no endless re-send.
    expect(farmIn.received).toHaveLength(1);
    expect(JSON.stringify(read)).not.toContain("\\u0000");
  });

  test("a webhook receiver answering 500 with NUL bytes: each attempt is recorded without them, the delivery fails after the limit", async () => {
    const h = createHarness({ delivery: THREE_TRIES });
    cleanups.push(() => h.close());
    const listener = startReceiver(() => new Response(`broken${NUL}${NUL} answer \\ud800`, { status: 500 }));
    cleanups.push(listener.stop);
    const { requester, provider } = await parties(h, "-NULW");
    expect((await integrate(h, requester, { webhookUrl: `${listener.url}/events` })).status).toBe(200);
    h.services.worker.start();
    await sendTrip(h, requester, regularTrip(requester.netid, provider.netid));
    const auth = { authorization: `Bearer ${requester.jwt}` };
    const items = await until(
      async () => (await h.request("GET", "/api/webhooks/deliveries", { headers: auth })).body.data.items as Json[],
      (list) => list.length > 0 && list.every((m) => m.status === "failed"),
    );
    expect(items[0].attempts).toBe(3);
    const detail = (await h.request("GET", `/api/webhooks/deliveries/${items[0].id}`, { headers: auth })).body.data;
    expect(JSON.stringify(detail)).not.toContain("\\u0000");
    expect(JSON.stringify(detail)).toContain("broken answer");
    const sent = listener.received.length;
    await Bun.sleep(400);
    expect(listener.received.length).toBe(sent);
    expect(sent).toBe(3 * items.length);
  });

  test("an attempt whose outcome cannot be recorded still counts: the message fails after the limit, no endless re-send", async () => {
    const h = createHarness();
    cleanups.push(() => h.close());
    const rx = startReceiver();
    cleanups.push(rx.stop);
    const lines: string[] = [];
    const logger = createLogger("info", { write: (line: string) => lines.push(line) } as never);
    const worker = new DeliveryWorker(
      h.services.outbox,
      h.services.integrations,
      {
        // As a database refusing the reply would: recording the delivered outcome always throws, quoting the values.
        delivered: () => {
          throw new Error("invalid byte sequence: params: Jane Passenger, +1 555 0100");
        },
      },
      { retryDelay: (n) => (n < 3 ? 0.05 : undefined), timeoutMs: 500, concurrency: 4, idleMs: 50, guard: new OutboundGuard({ allowPrivate: true, requireHttps: false }) },
      logger,
    );
    cleanups.push(() => worker.stop());
    const eventId = crypto.randomUUID();
    const body = JSON.stringify({ eventId, passenger: "Jane Passenger" });
    await h.services.outbox.enqueue({ eventId, channel: "delivery", eventType: "trip.new", transactionId: "tx-unrecordable", targetNetid: "ACME", url: rx.url, body }, Date.now() / 1000);
    worker.start();
    const message = await until(() => h.services.outbox.byEventId(eventId), (m) => m?.status === "failed");
    expect(message?.attempts).toBe(3);
    expect(message?.lastError).toContain("could not be stored");
    await Bun.sleep(300);
    expect(rx.received).toHaveLength(3);
    // No log line carries the passenger's data.
    expect(lines.join("\n")).not.toContain("Jane");
    expect(lines.some((l) => l.includes("could not be recorded"))).toBe(true);
  });
});
