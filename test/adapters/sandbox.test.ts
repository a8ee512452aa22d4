import { afterEach, describe, expect, test } from "bun:test";
import { createHarness, FAST_DELIVERY } from "../support/harness";
import { startReceiver } from "../support/receiver";
import { insertFleet, integrate, lookup, parties, quoteTrip, sendTrip } from "../support/trips";
import { startSandboxDispatcher } from "../../src/services";
import { join } from "node:path";
import { tempDir } from "../support/process";

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** Positions are throttled to one a second per booking, so the fast schedule spaces them 1.1 s apart. */
const FAST_SANDBOX = { stepMs: 120, positionMs: 1100, positions: 2 };

async function setup() {
  const h = createHarness({ delivery: FAST_DELIVERY, sandbox: FAST_SANDBOX });
  cleanups.push(() => h.close());
  const rx = startReceiver();
  cleanups.push(rx.stop);
  const { requester, provider } = await parties(h, `-${Math.random().toString(36).slice(2, 6)}`);
  await integrate(h, requester, { webhookUrl: `${rx.url}/hooks` });
  await insertFleet(h, provider.netid, [{ slug: `${provider.netid.toLowerCase()}-van`, type: "SPRINTER", maxPassengers: 12, maxLuggage: 10 }]);
  h.services.worker.start();
  cleanups.push(startSandboxDispatcher(h.services));
  return { h, rx, requester, provider };
}

async function waitForStatus(h: Awaited<ReturnType<typeof setup>>["h"], who: Parameters<typeof lookup>[1], id: string, status: string, timeoutMs: number) {
  const deadline = Date.now() + timeoutMs;
  let last = "";
  while (Date.now() < deadline) {
    last = (await lookup(h, who, id)).body.data.lastStatus;
    if (last === status) return;
    await Bun.sleep(50);
  }
  throw new Error(`booking stayed ${last}, never reached ${status} in ${timeoutMs} ms`);
}

describe("sandbox operators", () => {
  test("a QUOTE then a booking to a sandbox operator runs to CLOSE by itself; the requester's webhooks carry every status in order", async () => {
    const { h, rx, requester, provider } = await setup();
    expect(await h.services.sandboxes.setSandbox(provider.netid, true)).toBe(true);
    const quote = quoteTrip(requester.netid, provider.netid);
    const quoted = await sendTrip(h, requester, quote);
    expect(quoted.status).toBe(200);
    expect(quoted.body.status).toBe("QUOTE");
    const booked = await sendTrip(h, requester, { ...quote, reservationType: "REGULAR", fees: [{ code: quoted.body.fees[0].code }] });
    expect(booked.status).toBe(200);
    const id = booked.body.transactionId;
    expect(id).toBe(quoted.body.transactionId);

    await waitForStatus(h, requester, id, "CLOSE", 20_000);
    const booking = (await lookup(h, provider, id)).body.data;
    const changeLogs = booking.changeLogs ?? booking.tripPacket.changeLogs;
    expect(booking.targetResNo).toMatch(/^SBX-/);
    expect(booking.tripPacket.chauffeur).toMatchObject({ firstName: "Sandy", lastName: "Box" });
    expect(booking.tripPacket.vehicle).toMatchObject({ plateNo: "SANDBOX" });
    // Every move is the provider's own, logged like a real dispatcher's.
    const moves = changeLogs.map((c: { changeDesc: string }) => c.changeDesc).join("\n");
    for (const s of ["CONFIRMED", "ASSIGNED", "EN_ROUTE", "ON_LOCATION", "PASSENGER_ON_BOARD", "COMPLETE", "CLOSE"]) expect(moves).toContain(s);

    // The webhook of the last change arrives shortly after it is committed.
    const deadline = Date.now() + 10_000;
    while (Date.now() < deadline && !rx.received.some((r) => r.json?.data?.lastStatus === "CLOSE")) await Bun.sleep(50);
    const statuses = rx.received.map((r) => r.json.data.lastStatus as string).filter((s, i, all) => i === 0 || s !== all[i - 1]);
    expect(statuses).toEqual(["QUOTE", "BOOKING_REQUEST", "CONFIRMED", "ASSIGNED", "EN_ROUTE", "ON_LOCATION", "PASSENGER_ON_BOARD", "COMPLETE", "CLOSE"]);
    const types = rx.received.map((r) => r.json.type);
    expect(types).toContain("booking.location_changed");
    const enRoute = rx.received.find((r) => r.json.data.lastStatus === "EN_ROUTE");
    expect(enRoute!.json.data.tripPacket.location).toBeDefined();
  }, 45_000);

  test("a company that is not a sandbox answers nothing by itself; turning the sandbox off stops the dispatcher", async () => {
    const { h, requester, provider } = await setup();
    const sent = await sendTrip(h, requester, { ...quoteTrip(requester.netid, provider.netid), reservationType: "REGULAR" });
    const id = sent.body.transactionId;
    await Bun.sleep(600);
    expect((await lookup(h, requester, id)).body.data.lastStatus).toBe("BOOKING_REQUEST");
    await h.services.sandboxes.setSandbox(provider.netid, true);
    await waitForStatus(h, requester, id, "CONFIRMED", 5000);
    await h.services.sandboxes.setSandbox(provider.netid, false);
    await Bun.sleep(200);
    const status = (await lookup(h, requester, id)).body.data.lastStatus;
    await Bun.sleep(600);
    expect((await lookup(h, requester, id)).body.data.lastStatus).toBe(status);
  }, 30_000);

  test("after a restart the dispatcher resumes each booking from its stored status", async () => {
    const dbPath = join(tempDir(), "sandbox.sqlite");
    const first = createHarness({ dbPath, delivery: FAST_DELIVERY, sandbox: FAST_SANDBOX });
    const { requester, provider } = await parties(first, "-R");
    await first.services.sandboxes.setSandbox(provider.netid, true);
    const id = (await sendTrip(first, requester, { ...quoteTrip(requester.netid, provider.netid), reservationType: "REGULAR" })).body.transactionId;
    const stopFirst = startSandboxDispatcher(first.services);
    await waitForStatus(first, requester, id, "ASSIGNED", 5000);
    stopFirst();
    await Bun.sleep(300); // a tick under way finishes
    const left = (await lookup(first, requester, id)).body.data.lastStatus;
    await first.close();
    expect(["ASSIGNED", "EN_ROUTE"]).toContain(left);

    const second = createHarness({ dbPath, delivery: FAST_DELIVERY, sandbox: FAST_SANDBOX });
    cleanups.push(() => second.close());
    cleanups.push(startSandboxDispatcher(second.services));
    await waitForStatus(second, requester, id, "CLOSE", 20_000);
  }, 30_000);
});
