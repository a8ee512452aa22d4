import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createHarness, FAST_DELIVERY, ManualClock, type Harness } from "../../../support/harness";
import { startReceiver, type Received } from "../../../support/receiver";
import { integrate, lookup, nextResNo, party, sendTrip, soonTrip, type Party } from "../../../support/trips";

/**
 * Give-back recovery (docs/settlement.md#give-back-recovery), through HTTP: a requester's `giveBackRecovery` tiers
 * (checked, 400 naming each bad field, nothing saved; the default when unset) travel with each offer — in the
 * delivery the provider receives (NEW and UPDATE) and in its read, before it accepts.
 */

type Json = Record<string, any>;
const HOUR = 3600;
const clock = new ManualClock(Math.floor(Date.now() / 1000));
let h: Harness;
let requester: Party, provider: Party, plain: Party;
let farmIn: ReturnType<typeof startReceiver>;

const DEFAULT_TIERS = [
  { beforeMinutes: 1440, percent: 0 },
  { beforeMinutes: 120, percent: 50 },
  { beforeMinutes: 0, percent: 100 },
];
const TIERS = [
  { beforeMinutes: 0, percent: 100 },
  { beforeMinutes: 2880, percent: 10 },
  { beforeMinutes: 360, percent: 40 },
];
const BASE = { type: "BASE", code: "BASE", name: "Transfer", fee: "150.00", currency: "USD" };
const auth = (who: Party) => ({ authorization: `Bearer ${who.jwt}` });
const fields = (res: { body: Json }) => (res.body.errors as Array<{ field: string }>).map((e) => e.field);
const settings = async (who: Party) => (await h.request("GET", "/api/company/integration", { headers: auth(who) })).body.data;

/** A booking from `who` to the provider, picked up `hours` ahead of the clock, priced 150.00 USD. */
async function book(who: Party, hours = 3): Promise<string> {
  const body = soonTrip(who.netid, provider.netid, { fees: [BASE], totalAmount: "150.00" }, { requesterResNo: nextResNo() }, clock.now());
  body.locations.pickup.time = new Date((clock.now() + hours * HOUR) * 1000).toISOString().slice(0, 19) + "Z";
  const sent = await sendTrip(h, who, body);
  expect(sent.status).toBe(200);
  return sent.body.transactionId as string;
}

async function delivered(id: string, type: string): Promise<Received> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const found = farmIn.received.find((r) => r.json?.transactionId === id && r.headers["x-tripswitch-event-type"] === type);
    if (found) return found;
    if (Date.now() > deadline) throw new Error(`no ${type} delivered for ${id}`);
    await Bun.sleep(20);
  }
}

beforeAll(async () => {
  h = createHarness({ clock, delivery: FAST_DELIVERY });
  [requester, provider, plain] = await Promise.all([party(h, "GBR-BOOKWELL", "CO"), party(h, "GBR-ACME", "IO"), party(h, "GBR-PLAIN", "CO")]);
  farmIn = startReceiver();
  expect((await integrate(h, provider, { deliveryUrl: `${farmIn.url}/farm-in` })).status).toBe(200);
  h.services.worker.start();
}, 60_000);

afterAll(async () => {
  farmIn.stop();
  await h.close();
});

describe("the giveBackRecovery setting", () => {
  test("unset, it is the default: 0 % until 24 h before the pickup, 50 % until 2 h before, then 100 %", async () => {
    expect((await settings(plain)).giveBackRecovery).toEqual(DEFAULT_TIERS);
  });

  test("bad tiers are 400 naming each bad field, and nothing is saved", async () => {
    const bad = await integrate(h, requester, {
      giveBackRecovery: [
        { beforeMinutes: 1440, percent: 101 },
        { beforeMinutes: -5, percent: 50 },
        { beforeMinutes: 1440, percent: 20, fee: "10.00" },
        "all of it",
        { beforeMinutes: 7.5, percent: 12.5 },
      ],
      maxTripKm: 300,
    });
    expect(bad.status).toBe(400);
    expect(bad.body.code).toBe("VALIDATION_FAILED");
    expect(fields(bad).sort()).toEqual([
      "giveBackRecovery[0].percent",
      "giveBackRecovery[1].beforeMinutes",
      "giveBackRecovery[2].beforeMinutes",
      "giveBackRecovery[2].fee",
      "giveBackRecovery[3]",
      "giveBackRecovery[4].beforeMinutes",
      "giveBackRecovery[4].percent",
    ]);
    for (const shape of [[], {}, "50%", Array.from({ length: 11 }, (_, i) => ({ beforeMinutes: i * 60, percent: i }))])
      expect(fields(await integrate(h, requester, { giveBackRecovery: shape }))).toEqual(["giveBackRecovery"]);
    expect(await settings(requester)).toMatchObject({ giveBackRecovery: DEFAULT_TIERS, maxTripKm: 800 });
  });

  test("set, the tiers are shown earliest first; null puts the default back", async () => {
    const set = await integrate(h, requester, { giveBackRecovery: TIERS });
    expect(set.status).toBe(200);
    const sorted = [TIERS[1], TIERS[2], TIERS[0]];
    expect(set.body.data.giveBackRecovery).toEqual(sorted);
    expect((await settings(requester)).giveBackRecovery).toEqual(sorted);
    expect((await integrate(h, requester, { giveBackRecovery: null })).body.data.giveBackRecovery).toEqual(DEFAULT_TIERS);
    expect((await integrate(h, requester, { giveBackRecovery: TIERS })).status).toBe(200);
  });
});

describe("the tiers travel with each offer", () => {
  test("the provider sees the requester's tiers before it accepts: in the NEW and the UPDATE it receives, and in its reads", async () => {
    const sorted = [TIERS[1], TIERS[2], TIERS[0]];
    const id = await book(requester);
    expect((await delivered(id, "trip.new")).json.giveBackRecovery).toEqual(sorted);
    const core = (await lookup(h, provider, id)).body.data.tripPacket;
    const gnet = (await h.request("GET", `/Platform.svc/getReservationByTransactionId/${id}/V1`, { headers: { token: provider.token } })).body;
    for (const read of [core, gnet]) expect(read).toMatchObject({ status: "BOOKING_REQUEST", giveBackRecovery: sorted });
    const resNo = (await lookup(h, requester, id)).body.data.sourceResNo;
    const update = await sendTrip(h, requester, {
      transactionId: id,
      specialInstructions: "Gate B",
      affiliateReservation: { requesterId: requester.netid, requesterResNo: resNo, providerId: provider.netid, action: "UPDATE" },
    });
    expect(update.status).toBe(200);
    expect((await delivered(id, "trip.update")).json.giveBackRecovery).toEqual(sorted);
    // A booking keeps the tiers it was made under: a later change of the setting is for later bookings.
    expect((await integrate(h, requester, { giveBackRecovery: null })).status).toBe(200);
    expect((await lookup(h, provider, id)).body.data.tripPacket.giveBackRecovery).toEqual(sorted);
    expect((await lookup(h, provider, await book(requester))).body.data.tripPacket.giveBackRecovery).toEqual(DEFAULT_TIERS);
    expect((await integrate(h, requester, { giveBackRecovery: TIERS })).status).toBe(200);
  });

  test("a requester that never set tiers books under the default", async () => {
    const id = await book(plain);
    expect((await delivered(id, "trip.new")).json.giveBackRecovery).toEqual(DEFAULT_TIERS);
    expect((await lookup(h, plain, id)).body.data.tripPacket.giveBackRecovery).toEqual(DEFAULT_TIERS);
  });
});
