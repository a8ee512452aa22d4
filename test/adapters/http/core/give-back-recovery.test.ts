import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createHarness, FAST_DELIVERY, ManualClock, type Harness } from "../../../support/harness";
import { startReceiver, type Received } from "../../../support/receiver";
import { integrate, lookup, nextResNo, party, providerUpdate, sendTrip, soonTrip, type Party } from "../../../support/trips";

/**
 * Give-back recovery (docs/settlement.md#give-back-recovery), through HTTP: a requester's `giveBackRecovery` tiers
 * (checked, 400 naming each bad field, nothing saved; the default when unset) travel with each offer — in the
 * delivery the provider receives (NEW and UPDATE) and in its read, before it accepts; a provider's CANCEL after it
 * accepted records a COST_RECOVERY (the tier's percent of the quoted fare, in minor units) shown in both parties'
 * reads and the webhook, and stored for statements by requester, provider and pickup month.
 */

type Json = Record<string, any>;
const HOUR = 3600;
const clock = new ManualClock(Math.floor(Date.now() / 1000));
let h: Harness;
let requester: Party, provider: Party, plain: Party;
let farmIn: ReturnType<typeof startReceiver>;
let hooks: ReturnType<typeof startReceiver>;

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
  hooks = startReceiver();
  expect((await integrate(h, provider, { deliveryUrl: `${farmIn.url}/farm-in` })).status).toBe(200);
  expect((await integrate(h, plain, { webhookUrl: `${hooks.url}/hooks`, webhookFormat: "events" })).status).toBe(200);
  h.services.worker.start();
}, 60_000);

afterAll(async () => {
  farmIn.stop();
  hooks.stop();
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

/** The UTC month [start, end) of a pickup (Unix seconds), as a statement's period is. */
function monthOf(unix: number): [number, number] {
  const d = new Date(unix * 1000);
  return [Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1) / 1000, Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1) / 1000];
}

async function hookFor(id: string, status: string): Promise<Received> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const found = hooks.received.find((r) => r.json?.data?.transactionId === id && r.json?.data?.lastStatus === status);
    if (found) return found;
    if (Date.now() > deadline) throw new Error(`no webhook with status ${status} for ${id}`);
    await Bun.sleep(20);
  }
}

describe("a give-back records a COST_RECOVERY", () => {
  test("given back 3 h before the pickup under the default tiers: 50 % of the quoted 150.00 (not of a line added later) is owed", async () => {
    const id = await book(plain, 3);
    expect((await providerUpdate(h, provider, id, { status: "CONFIRMED", fees: [BASE, { type: "CHARGE", code: "TOLL", fee: "20.00" }] })).status).toBe(200);
    const cancel = await providerUpdate(h, provider, id, { status: "CANCEL" });
    expect(cancel.status).toBe(200);
    const recovery = { kind: "COST_RECOVERY", owedBy: provider.netid, owedTo: plain.netid, percent: 50, amount: "75.00", currency: "USD", fare: "150.00" };
    const reads = [
      (await lookup(h, plain, id)).body.data.tripPacket,
      (await lookup(h, provider, id)).body.data.tripPacket,
      (await h.request("GET", `/Platform.svc/getReservationByTransactionId/${id}/V1`, { headers: { token: plain.token } })).body,
      (await h.request("GET", `/Platform.svc/getReservationByTransactionId/${id}/V1`, { headers: { token: provider.token } })).body,
    ];
    for (const read of reads) {
      expect(read.status).toBe("CANCEL");
      expect(read.costRecovery).toMatchObject(recovery);
      expect(read.costRecovery.waived).toBeUndefined();
    }
    const logged = (reads[0].changeLogs as Json[]).map((l) => l.changeDesc);
    expect(logged).toContain(`cost recovery owed by ${provider.netid} to ${plain.netid}: 75.00 USD (50% of 150.00)`);
    expect((await hookFor(id, "CANCEL")).json.data.tripPacket.costRecovery).toMatchObject(recovery);

    // Stored for statements: whole minor units, by requester, provider and the pickup's month, read both ways.
    const pickup = (await lookup(h, plain, id)).body.data.pickupDate as number;
    const [row] = await h.rows("SELECT * FROM cost_recoveries WHERE transaction_id = ?", id);
    expect({ ...row, waived: Boolean(row.waived), amount_minor: Number(row.amount_minor), pickup_date: Number(row.pickup_date) }).toMatchObject({
      requester_id: plain.netid,
      provider_id: provider.netid,
      amount_minor: 7500,
      currency: "USD",
      percent: 50,
      pickup_date: pickup,
      waived: false,
    });
    const [from, to] = monthOf(pickup);
    const stored = { transactionId: id, requesterId: plain.netid, providerId: provider.netid, amountMinor: 7500, currency: "USD", percent: 50, pickupDate: pickup, waived: false };
    const recoveries = h.services.storage.costRecoveries;
    for (const [a, b] of [[plain.netid, provider.netid], [provider.netid, plain.netid]])
      expect((await recoveries.between(a, b, from, to)).filter((r) => r.transactionId === id)).toEqual([{ ...stored, recordedAt: expect.any(Number) }]);
    expect((await recoveries.of(provider.netid, from, to)).map((r) => r.transactionId)).toContain(id);
    expect(await recoveries.between(plain.netid, provider.netid, to, to + 31 * 86_400)).toEqual([]);
  });

  test("the recovery is a COST_RECOVERY line of both parties' statements for the pickup's month, owed by the provider, the nets mirrored", async () => {
    const id = await book(plain, 3);
    expect((await providerUpdate(h, provider, id, { status: "CONFIRMED" })).status).toBe(200);
    expect((await providerUpdate(h, provider, id, { status: "CANCEL" })).status).toBe(200);
    const pickup = (await lookup(h, plain, id)).body.data.pickupDate as number;
    const period = new Date(pickup * 1000).toISOString().slice(0, 7);
    const statement = async (me: Party, them: Party) => {
      const res = await h.request("GET", `/api/statements?counterparty=${them.netid}&period=${period}`, { headers: auth(me) });
      expect(res.status).toBe(200);
      return res.body.data ?? res.body;
    };
    const [requesterSide, providerSide] = [await statement(plain, provider), await statement(provider, plain)];
    const line = (s: Json) => (s.lines as Json[]).find((l) => l.transactionId === id);
    expect(line(requesterSide)).toMatchObject({ kind: "COST_RECOVERY", role: "requester", amount: "75.00", currency: "USD", status: "CANCEL", disputed: false });
    expect(line(providerSide)).toMatchObject({ kind: "COST_RECOVERY", role: "provider", amount: "75.00", currency: "USD" });
    const usd = (s: Json) => (s.totals as Json[]).find((t) => t.currency === "USD")!;
    expect(Number(usd(requesterSide).owedToYou)).toBeGreaterThanOrEqual(75);
    expect(usd(requesterSide).net).toBe(usd(providerSide).net.startsWith("-") ? usd(providerSide).net.slice(1) : `-${usd(providerSide).net}`);
    expect(usd(requesterSide).youOwe).toBe(usd(providerSide).owedToYou);
  });

  test("the requester's own tiers: given back more than 48 h ahead owes 10 %; a decline before accepting records nothing", async () => {
    const early = await book(requester, 50);
    expect((await providerUpdate(h, provider, early, { status: "CONFIRMED" })).status).toBe(200);
    expect((await providerUpdate(h, provider, early, { status: "CANCEL" })).status).toBe(200);
    expect((await lookup(h, requester, early)).body.data.tripPacket.costRecovery).toMatchObject({ percent: 10, amount: "15.00", fare: "150.00" });
    const declined = await book(requester, 50);
    expect((await providerUpdate(h, provider, declined, { status: "CANCEL" })).status).toBe(200);
    expect((await lookup(h, requester, declined)).body.data.tripPacket.costRecovery).toBeUndefined();
    expect(await h.rows("SELECT * FROM cost_recoveries WHERE transaction_id = ?", declined)).toEqual([]);
  });
});
