import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createHarness, FAST_DELIVERY, ManualClock, type Harness } from "../../../support/harness";
import { startReceiver, type Received } from "../../../support/receiver";
import { integrate, lookup, party, pickupIn, providerUpdate, sendTrip, soonTrip, type Party } from "../../../support/trips";
import { watchOffers } from "../../../../domain/usecases/offer-watch";
import { startOfferWatch } from "../../../../src/services";

/**
 * The assignment deadline (docs/terms.md#the-assignment-deadline), through HTTP: a booking carries `terms.assignBy`
 * (the pickup − the provider's assignBeforeMinutes, default 120); accepted and still without a chauffeur then, both
 * parties get `booking.unassigned_warning` (webhooks and event streams) once — after a restart too —, never when
 * it was assigned in time or cancelled, and a pickup moved later moves (or re-arms) it.
 */

type Json = Record<string, any>;
const MIN = 60;
const HOUR = 3600;
const clock = new ManualClock(Math.floor(Date.now() / 1000));
/** Deadlines are waited out on a clock set in the past and moved forward, never past real time (the outbox sends at real time). */
const rewind = (seconds: number) => (clock.t = Math.floor(Date.now() / 1000) - seconds);
const iso = (unix: number) => new Date(unix * 1000).toISOString().replace(".000Z", "Z");
const dir = mkdtempSync(join(tmpdir(), "assign-deadline-"));
const dbPath = join(dir, "assign.sqlite");
const WARNING = "booking.unassigned_warning";
let h: Harness;
let requester: Party, provider: Party;
let hooks: ReturnType<typeof startReceiver>;

/** A booking picked up `hours` after the clock, moved by the provider through `statuses`; its pickup (Unix seconds). */
async function booking(statuses: string[] = ["CONFIRMED"], hours = 3): Promise<{ id: string; pickup: number; body: Json }> {
  const body = soonTrip(requester.netid, provider.netid, {}, {}, clock.now());
  body.locations.pickup.time = pickupIn(hours, clock.now());
  const sent = await sendTrip(h, requester, body);
  expect(sent.status).toBe(200);
  const id = sent.body.transactionId as string;
  for (const status of statuses) expect((await providerUpdate(h, provider, id, { status })).status).toBe(200);
  return { id, pickup: Date.parse(body.locations.pickup.time) / 1000, body };
}

/** The requester moves the booking's pickup to `at` (Unix seconds). */
async function movePickup(b: { id: string; body: Json }, at: number) {
  const pickup = { ...b.body.locations.pickup, time: iso(at) };
  const affiliateReservation = { requesterId: requester.netid, providerId: provider.netid, action: "UPDATE" };
  const res = await sendTrip(h, requester, { locations: { pickup }, transactionId: b.id, affiliateReservation });
  expect(res.status).toBe(200);
}

const read = async (who: Party, id: string): Promise<Json> => (await lookup(h, who, id)).body.data;
/** Warnings received for `id` at the requester's (`/requester`) or the provider's (`/provider`) webhook URL. */
const warningsAt = (path: string, id: string) => hooks.received.filter((r: Received) => r.path === path && r.json?.type === WARNING && r.json?.data?.transactionId === id);

async function warningFor(path: string, id: string): Promise<Json> {
  const deadline = Date.now() + 15_000;
  while (warningsAt(path, id).length === 0) {
    if (Date.now() > deadline) throw new Error(`no ${WARNING} for ${id} at ${path}`);
    await Bun.sleep(20);
  }
  return warningsAt(path, id)[0].json;
}

/** The booking's warnings on the party's event stream log (PostgreSQL numbers them shortly after the commit). */
async function streamed(who: Party, id: string, atLeast = 1): Promise<Json[]> {
  const deadline = Date.now() + 15_000;
  const log = h.services.storage.liveEvents as typeof h.services.storage.liveEvents & { sequence?: () => Promise<void> };
  for (;;) {
    await log.sequence?.();
    const events = await h.services.storage.liveEvents.recent(who.netid.toLowerCase(), WARNING, 50);
    const mine = events.map((e) => JSON.parse(e.body)).filter((b) => b.data.transactionId === id);
    if (mine.length >= atLeast || Date.now() > deadline) return mine;
    await Bun.sleep(25);
  }
}

/** One watch pass that found something due (on PostgreSQL a row locked at that moment is left to the next pass). */
async function watch() {
  for (let i = 0; ; i++) {
    const pass = await watchOffers(h.services.offers, (err, id) => console.error("offer watch failed", id, err));
    if (pass.claimed > 0 || i >= 50) return pass;
    await Bun.sleep(20);
  }
}

function openService() {
  h = createHarness({ clock, delivery: FAST_DELIVERY, dbPath });
  h.services.worker.start();
}

beforeAll(async () => {
  openService();
  [requester, provider] = await Promise.all([party(h, "ASSIGN-BOOKWELL", "CO"), party(h, "ASSIGN-ACME", "IO")]);
  hooks = startReceiver();
  expect((await integrate(h, requester, { webhookUrl: `${hooks.url}/requester`, webhookFormat: "events" })).status).toBe(200);
  expect((await integrate(h, provider, { webhookUrl: `${hooks.url}/provider`, webhookFormat: "events" })).status).toBe(200);
}, 60_000);

afterAll(async () => {
  hooks.stop();
  await h.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("the assignment deadline", () => {
  test("policies.assignBeforeMinutes: 120 by default, 0–1,440, else 400 naming it with nothing saved; bookings keep terms.assignBy", async () => {
    const shown = await h.request("GET", "/api/company/integration", { headers: { authorization: `Bearer ${provider.jwt}` } });
    expect(shown.body.data.policies.assignBeforeMinutes).toBe(120);
    for (const bad of [-1, 1441, 30.5, "60"]) {
      const refused = await integrate(h, provider, { policies: { assignBeforeMinutes: bad, freeWaitingMinutes: { other: 5 } } });
      expect({ bad, status: refused.status, fields: refused.body.errors?.map((e: Json) => e.field) }).toEqual({
        bad,
        status: 400,
        fields: ["policies.assignBeforeMinutes"],
      });
    }
    const set = await integrate(h, provider, { policies: { assignBeforeMinutes: 90 } });
    expect(set.body.data.policies).toMatchObject({ assignBeforeMinutes: 90, freeWaitingMinutes: { other: 15 } });
    rewind(0);
    const b = await booking([]);
    for (const who of [requester, provider]) expect((await read(who, b.id)).terms.assignBy).toBe(iso(b.pickup - 90 * MIN));
    const reset = await integrate(h, provider, { policies: { assignBeforeMinutes: null } });
    expect(reset.body.data.policies.assignBeforeMinutes).toBe(120);
    // A later policy change never alters the booking's terms.
    expect((await read(requester, b.id)).terms.assignBy).toBe(iso(b.pickup - 90 * MIN));
  });

  test("accepted, no chauffeur at pickup − 120 min: both parties warned once — webhooks and event streams, with the numbers, pickup, deadline and minutes left", async () => {
    rewind(3 * HOUR);
    const b = await booking(["CONFIRMED"]);
    const assignBy = b.pickup - 120 * MIN;
    expect((await read(requester, b.id)).terms.assignBy).toBe(iso(assignBy));
    clock.t = assignBy - 1;
    await watchOffers(h.services.offers);
    clock.t = assignBy + 30;
    expect((await watch()).unassigned).toBeGreaterThanOrEqual(1);
    const members = { reservationId: b.id, providerResNo: null, pickupAt: iso(b.pickup), assignBy: iso(assignBy), minutesLeft: 119 };
    const toRequester = await warningFor("/requester", b.id);
    expect(toRequester).toMatchObject({ type: WARNING, ...members, requesterResNo: b.body.affiliateReservation.requesterResNo });
    expect(toRequester.data).toMatchObject({ lastStatus: "CONFIRMED", terms: { assignBy: iso(assignBy) } });
    expect(await warningFor("/provider", b.id)).toMatchObject({ type: WARNING, ...members });
    for (const who of [requester, provider]) expect(await streamed(who, b.id)).toEqual([expect.objectContaining(members)]);
    const logged = (await read(provider, b.id)).tripPacket.changeLogs.at(-1).changeDesc;
    expect(logged).toBe(`unassigned warning: no chauffeur assigned by ${iso(assignBy)}; pickup at ${iso(b.pickup)}, 119 minutes left`);
    // Once: later passes find nothing due; assigning afterwards announces no warning either.
    clock.advance(10 * MIN);
    await watchOffers(h.services.offers);
    expect((await providerUpdate(h, provider, b.id, { status: "ASSIGNED" })).status).toBe(200);
    await Bun.sleep(300);
    for (const path of ["/requester", "/provider"]) expect(warningsAt(path, b.id)).toHaveLength(1);
    for (const who of [requester, provider]) expect(await streamed(who, b.id)).toHaveLength(1);
  });

  test("not sent when a chauffeur was assigned in time, the booking was cancelled, or the provider never accepted it", async () => {
    rewind(3 * HOUR);
    const assigned = await booking(["CONFIRMED", "ASSIGNED"]);
    const named = await booking(["CONFIRMED"]);
    expect((await providerUpdate(h, provider, named.id, { status: "CONFIRMED", chauffeur: { firstName: "Ana", lastName: "Ruiz" } })).status).toBe(200);
    const cancelled = await booking(["CONFIRMED"]);
    const cancel = { transactionId: cancelled.id, affiliateReservation: { requesterId: requester.netid, providerId: provider.netid, action: "CANCEL" } };
    expect((await sendTrip(h, requester, cancel)).status).toBe(200);
    const unaccepted = await booking([]);
    // The control: accepted and left without a chauffeur, so the pass that passes the others by is seen to run.
    const control = await booking(["CONFIRMED"]);
    clock.t = control.pickup - 120 * MIN + 60;
    expect((await watch()).unassigned).toBeGreaterThanOrEqual(1);
    await warningFor("/requester", control.id);
    await warningFor("/provider", control.id);
    await Bun.sleep(300);
    for (const b of [assigned, named, cancelled, unaccepted]) {
      for (const path of ["/requester", "/provider"]) expect({ id: b.id, path, n: warningsAt(path, b.id).length }).toEqual({ id: b.id, path, n: 0 });
      for (const who of [requester, provider]) expect(await streamed(who, b.id, 0)).toEqual([]);
    }
  });

  test("a pickup moved later moves the deadline with it; moved later after a warning, it re-arms for the new deadline", async () => {
    rewind(6 * HOUR);
    const b = await booking(["CONFIRMED"]);
    const later = b.pickup + 2 * HOUR;
    await movePickup(b, later);
    const moved = await read(requester, b.id);
    expect(moved).toMatchObject({ lastStatus: "CONFIRMED", terms: { assignBy: iso(later - 120 * MIN) } });
    // The first deadline passes: nothing (a control booking proves the pass ran).
    const control = await booking(["CONFIRMED"]);
    clock.t = b.pickup - 120 * MIN + 60;
    await watch();
    await warningFor("/requester", control.id);
    expect(warningsAt("/requester", b.id)).toHaveLength(0);
    // The new one passes: warned, for the moved pickup.
    clock.t = later - 120 * MIN + 60;
    await watch();
    expect(await warningFor("/requester", b.id)).toMatchObject({ pickupAt: iso(later), assignBy: iso(later - 120 * MIN), minutesLeft: 119 });
    // Moved later again after the warning: one more warning at the new deadline, none before it.
    const latest = later + HOUR;
    await movePickup(b, latest);
    await watchOffers(h.services.offers);
    await Bun.sleep(200);
    expect(warningsAt("/requester", b.id)).toHaveLength(1);
    clock.t = latest - 120 * MIN + 60;
    await watch();
    const deadline = Date.now() + 15_000;
    while (warningsAt("/requester", b.id).length < 2 && Date.now() < deadline) await Bun.sleep(20);
    expect(warningsAt("/requester", b.id).map((r) => r.json.assignBy)).toEqual([iso(later - 120 * MIN), iso(latest - 120 * MIN)]);
    expect(await streamed(provider, b.id, 2)).toHaveLength(2);
  });

  test("a flight that moves the pickup later moves the deadline with it: nothing at the old one, the warning at the new one", async () => {
    rewind(6 * HOUR);
    const body = soonTrip(requester.netid, provider.netid, {}, {}, clock.now());
    const pickup = clock.now() + 3 * HOUR;
    const flightInfo = { airlineCode: "BA", flightNumber: "117", scheduledArrival: iso(pickup - 30 * MIN) };
    body.locations.pickup = { ...body.locations.pickup, time: iso(pickup), flightInfo };
    const sent = await sendTrip(h, requester, body);
    expect(sent.status).toBe(200);
    const id = sent.body.transactionId as string;
    expect((await providerUpdate(h, provider, id, { status: "CONFIRMED" })).status).toBe(200);
    // Two hours late: the pickup, and with it the deadline, move two hours later.
    const late = await h.request("POST", `/api/reservation/${id}/flight-status`, {
      headers: { authorization: `Bearer ${requester.jwt}` },
      body: { estimatedArrival: iso(pickup - 30 * MIN + 2 * HOUR) },
    });
    expect([200, 202]).toContain(late.status);
    const moved = pickup + 2 * HOUR;
    expect((await read(provider, id)).terms.assignBy).toBe(iso(moved - 120 * MIN));
    const control = await booking(["CONFIRMED"]);
    clock.t = pickup - 120 * MIN + 60;
    await watch();
    await warningFor("/requester", control.id);
    expect(warningsAt("/requester", id)).toHaveLength(0);
    clock.t = moved - 120 * MIN + 60;
    await watch();
    expect(await warningFor("/provider", id)).toMatchObject({ pickupAt: iso(moved), assignBy: iso(moved - 120 * MIN), minutesLeft: 119 });
  });

  test("a provider whose webhook takes GNet's callbacks gets the warning in that shape, typed in the header", async () => {
    expect((await integrate(h, provider, { webhookFormat: "gnet" })).status).toBe(200);
    try {
      rewind(3 * HOUR);
      const b = await booking(["CONFIRMED"]);
      clock.t = b.pickup - 120 * MIN + 60;
      await watch();
      const header = (r: Received) => r.path === "/provider" && r.headers["x-tripswitch-event-type"] === WARNING && r.json?.transactionId === b.id;
      const deadline = Date.now() + 15_000;
      while (!hooks.received.some(header) && Date.now() < deadline) await Bun.sleep(20);
      const got = hooks.received.filter(header);
      expect(got).toHaveLength(1);
      expect(got[0].json).toMatchObject({ transactionId: b.id, status: "CONFIRMED", terms: { assignBy: iso(b.pickup - 120 * MIN) } });
    } finally {
      expect((await integrate(h, provider, { webhookFormat: "events" })).status).toBe(200);
    }
  });

  test("exactly once across restarts: a deadline passed while the service was down is warned of by the first pass, and never again", async () => {
    rewind(3 * HOUR);
    const b = await booking(["CONFIRMED"]);
    const assignBy = b.pickup - 120 * MIN;
    await h.close();
    clock.t = assignBy + 5 * MIN;
    openService();
    const stop = startOfferWatch(h.services, 50);
    try {
      await warningFor("/requester", b.id);
      await warningFor("/provider", b.id);
    } finally {
      await stop();
    }
    // Restarted again later: the watch runs for a while and finds nothing more to warn of.
    await h.close();
    clock.t = assignBy + 20 * MIN;
    openService();
    const again = startOfferWatch(h.services, 50);
    try {
      await Bun.sleep(1000);
    } finally {
      await again();
    }
    await Bun.sleep(300);
    for (const path of ["/requester", "/provider"]) expect(warningsAt(path, b.id)).toHaveLength(1);
    expect(warningsAt("/requester", b.id)[0].json).toMatchObject({ assignBy: iso(assignBy), minutesLeft: 115 });
    for (const who of [requester, provider]) expect(await streamed(who, b.id)).toHaveLength(1);
  });
});
