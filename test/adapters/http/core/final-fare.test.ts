import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createHarness, FAST_DELIVERY, ManualClock, type Harness } from "../../../support/harness";
import { startReceiver, type Received } from "../../../support/receiver";
import { integrate, lookup, party, providerUpdate, sendTrip, soonTrip, type Party } from "../../../support/trips";
import { watchOffers } from "../../../../domain/usecases/offer-watch";
import { startOfferWatch } from "../../../../src/services";

/**
 * The final fare (docs/settlement.md#the-final-fare), through HTTP: from COMPLETE (or CLOSE) the provider sends the whole
 * fee list for 24 h, repeating CLOSE with `fees` while the fare is OPEN; reads carry `finalFare {state, until}`; then
 * the watch makes it FINAL (`booking.fare_final`, once, with nobody touching the booking, after a restart too), and a
 * later change of the lines is 409 FARE_FINAL with nothing saved.
 */

type Json = Record<string, any>;
const DAY = 24 * 3600;
const clock = new ManualClock(Math.floor(Date.now() / 1000));
/** Windows are waited out on a clock set in the past and moved forward, never past real time (the outbox sends at real time). */
const rewind = (seconds: number) => (clock.t = Math.floor(Date.now() / 1000) - seconds);
const iso = (unix: number) => new Date(unix * 1000).toISOString().replace(".000Z", "Z");
const dir = mkdtempSync(join(tmpdir(), "final-fare-"));
const dbPath = join(dir, "fare.sqlite");
let h: Harness;
let requester: Party, provider: Party;
let hooks: ReturnType<typeof startReceiver>;

const BASE = { type: "BASE", code: "BASE", name: "Transfer", fee: "150.00", currency: "USD" };
const TOLL = { type: "CHARGE", code: "TOLL", name: "Tolls", fee: "12.50", currency: "USD" };
const PARKING = { type: "EXPENSE", code: "PARKING", name: "Parking", fee: "8.00", currency: "USD" };
const WAITING = { type: "EXTRA_SERVICE", code: "WAITING", name: "Waiting", fee: "30.00", currency: "USD" };

/** A booking picked up in 3 h, priced 150.00 USD by the requester, run by the provider to `status`. */
async function bookingRunTo(status: "COMPLETE" | "CLOSE"): Promise<string> {
  const sent = await sendTrip(h, requester, soonTrip(requester.netid, provider.netid, { fees: [BASE], totalAmount: "150.00" }, {}, clock.now()));
  expect(sent.status).toBe(200);
  const id = sent.body.transactionId as string;
  expect((await providerUpdate(h, provider, id, { status: "CONFIRMED" })).status).toBe(200);
  expect((await providerUpdate(h, provider, id, { status })).status).toBe(200);
  return id;
}

/** The booking as both parties read it (core lookup, GNet read). */
async function reads(id: string): Promise<Json[]> {
  const out: Json[] = [];
  for (const who of [requester, provider]) {
    out.push((await lookup(h, who, id)).body.data.tripPacket);
    out.push((await h.request("GET", `/Platform.svc/getReservationByTransactionId/${id}/V1`, { headers: { token: who.token } })).body);
  }
  return out;
}

const hooksFor = (id: string, type: string) => hooks.received.filter((r: Received) => r.json?.data?.transactionId === id && r.json?.type === type);
async function hookFor(id: string, type: string): Promise<Received> {
  const deadline = Date.now() + 10_000;
  while (hooksFor(id, type).length === 0) {
    if (Date.now() > deadline) throw new Error(`no ${type} for ${id}: ${JSON.stringify(hooks.received.map((r) => [r.json?.type, r.json?.data?.transactionId]))}`);
    await Bun.sleep(20);
  }
  return hooksFor(id, type)[0];
}

/** One watch pass that found something due (on PostgreSQL a row locked at that moment is left to the next pass). */
async function watch() {
  for (let i = 0; ; i++) {
    const pass = await watchOffers(h.services.offers, (err, id) => console.error("offer watch failed", id, err));
    if (pass.claimed > 0 || i >= 50) return pass;
    await Bun.sleep(20);
  }
}

beforeAll(async () => {
  h = createHarness({ clock, delivery: FAST_DELIVERY, dbPath });
  [requester, provider] = await Promise.all([party(h, "FINAL-BOOKWELL", "CO"), party(h, "FINAL-ACME", "IO")]);
  hooks = startReceiver();
  expect((await integrate(h, requester, { webhookUrl: `${hooks.url}/hooks`, webhookFormat: "events" })).status).toBe(200);
  h.services.worker.start();
}, 60_000);

afterAll(async () => {
  hooks.stop();
  await h.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("the final fare", () => {
  test("COMPLETE opens the fare for 24 h: lines are taken, CLOSE repeated with fees changes only the lines", async () => {
    const sent = await sendTrip(h, requester, soonTrip(requester.netid, provider.netid, { fees: [BASE], totalAmount: "150.00" }, {}, clock.now()));
    const id = sent.body.transactionId as string;
    expect((await providerUpdate(h, provider, id, { status: "CONFIRMED" })).status).toBe(200);
    // Before the trip ends there is no final fare to show.
    for (const packet of await reads(id)) expect(packet.finalFare).toBeUndefined();
    const completedAt = clock.now();
    expect((await providerUpdate(h, provider, id, { status: "COMPLETE", fees: [BASE, TOLL] })).status).toBe(200);
    for (const packet of await reads(id)) {
      expect(packet.finalFare).toEqual({ state: "OPEN", until: iso(completedAt + DAY) });
      expect(packet.totalAmount).toBe("162.50");
    }
    clock.advance(3600);
    expect((await providerUpdate(h, provider, id, { status: "CLOSE", fees: [BASE, TOLL, PARKING] })).status).toBe(200);
    clock.advance(3600);
    const again = await providerUpdate(h, provider, id, { status: "CLOSE", fees: [BASE, TOLL, PARKING, WAITING] });
    expect(again.status).toBe(200);
    for (const packet of await reads(id)) {
      expect(packet).toMatchObject({ status: "CLOSE", totalAmount: "200.50", finalFare: { state: "OPEN", until: iso(completedAt + DAY) } });
      expect(packet.fees.map((f: Json) => f.code)).toEqual(["BASE", "TOLL", "PARKING", "WAITING"]);
    }
    const logged = ((await lookup(h, requester, id)).body.data.tripPacket.changeLogs as Json[]).map((l) => l.changeDesc);
    expect(logged).toContain("totalAmount 170.50 → 200.50");
    // Only the lines: anything else on a closed booking stays refused, and nothing of that update is kept.
    const note = await providerUpdate(h, provider, id, { status: "CLOSE", providerNote: "late", fees: [BASE] });
    expect(note.status).toBe(409);
    expect(note.body.code).toBe("INVALID_TRANSITION");
    expect((await lookup(h, requester, id)).body.data.tripPacket.totalAmount).toBe("200.50");
  });

  test("after 24 h: a change of the lines is 409 FARE_FINAL (even before the watch ran), nothing saved; the watch announces FINAL once", async () => {
    rewind(DAY + 600);
    const id = await bookingRunTo("COMPLETE");
    expect((await providerUpdate(h, provider, id, { status: "COMPLETE", fees: [BASE, TOLL] })).status).toBe(200);
    const until = clock.now() + DAY;
    clock.t = until;
    const before = (await lookup(h, requester, id)).body.data.tripPacket;
    const late = await providerUpdate(h, provider, id, { status: "CLOSE", fees: [BASE, TOLL, PARKING] });
    expect(late.status).toBe(409);
    expect(late.body).toMatchObject({ success: false, code: "FARE_FINAL" });
    expect((await lookup(h, requester, id)).body.data.tripPacket).toEqual(before);

    expect((await watch()).fareFinal).toBeGreaterThanOrEqual(1);
    for (const packet of await reads(id)) expect(packet).toMatchObject({ status: "COMPLETE", totalAmount: "162.50", finalFare: { state: "FINAL", until: iso(until) } });
    const hook = await hookFor(id, "booking.fare_final");
    expect(hook.json.data.tripPacket).toMatchObject({ totalAmount: "162.50", finalFare: { state: "FINAL", until: iso(until) } });
    // Once: a later pass finds nothing due, and the same price (or CLOSE without fees) still goes through.
    clock.advance(60);
    await watchOffers(h.services.offers);
    expect((await providerUpdate(h, provider, id, { status: "CLOSE", fees: [BASE, TOLL], totalAmount: "162.50" })).status).toBe(200);
    const totalAlone = await providerUpdate(h, provider, id, { status: "CLOSE", totalAmount: "170.00" });
    expect(totalAlone.status).toBe(409);
    expect(totalAlone.body.code).toBe("FARE_FINAL");
    await Bun.sleep(200);
    expect(hooksFor(id, "booking.fare_final")).toHaveLength(1);
    expect((await lookup(h, requester, id)).body.data.tripPacket).toMatchObject({ status: "CLOSE", totalAmount: "162.50", finalFare: { state: "FINAL" } });
  });

  test("nobody touches the booking: the watch's timer makes the fare FINAL, also after the service restarts", async () => {
    rewind(DAY + 600);
    const untouched = await bookingRunTo("CLOSE");
    const until = clock.now() + DAY;
    const stop = startOfferWatch(h.services, 50);
    try {
      clock.t = until + 1;
      await hookFor(untouched, "booking.fare_final");
    } finally {
      await stop();
    }
    expect((await lookup(h, provider, untouched)).body.data.tripPacket.finalFare).toEqual({ state: "FINAL", until: iso(until) });

    // A booking whose window ends while the service is down: the watch's first pass after the restart makes it FINAL.
    rewind(DAY + 600);
    const later = await bookingRunTo("COMPLETE");
    const laterUntil = clock.now() + DAY;
    await h.close();
    clock.t = laterUntil + 60;
    h = createHarness({ clock, delivery: FAST_DELIVERY, dbPath });
    h.services.worker.start();
    const restarted = startOfferWatch(h.services, 50);
    try {
      await hookFor(later, "booking.fare_final");
    } finally {
      await restarted();
    }
    expect((await lookup(h, requester, later)).body.data.tripPacket.finalFare).toEqual({ state: "FINAL", until: iso(laterUntil) });
  });
});
