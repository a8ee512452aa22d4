import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createHarness, FAST_DELIVERY, ManualClock, type Harness } from "../../../support/harness";
import { startReceiver, type Received } from "../../../support/receiver";
import { lookup, parties, regularTrip, sendTrip, type Party } from "../../../support/trips";

/**
 * docs/integration.md#what-a-quote-offers-service-area-currency-warnings for a requester's own fee lines (sendTrip NEW and UPDATE, REGULAR or ONDEMAND): each `fee` in the
 * currency the lines name (a line naming its own currency takes that one), else on an UPDATE the booking's stored
 * currency, else two decimals. Too many decimals is 400 naming each field, and nothing is stored.
 */

type Json = Record<string, any>;

const clock = new ManualClock(Math.floor(Date.now() / 1000));
let h: Harness;
let requester: Party, provider: Party, stranger: Party;
let hooks: ReturnType<typeof startReceiver>;
let farmIn: ReturnType<typeof startReceiver>;

beforeAll(async () => {
  h = createHarness({ clock, delivery: FAST_DELIVERY });
  ({ requester, provider, stranger } = await parties(h));
  hooks = startReceiver();
  farmIn = startReceiver();
  const integrate = (who: Party, body: unknown) => h.request("PUT", "/api/company/integration", { headers: { authorization: `Bearer ${who.jwt}` }, body });
  expect((await integrate(requester, { webhookUrl: `${hooks.url}/hooks`, webhookFormat: "events" })).status).toBe(200);
  expect((await integrate(provider, { deliveryUrl: `${farmIn.url}/farm-in` })).status).toBe(200);
  h.services.worker.start();
});

afterAll(async () => {
  hooks.stop();
  farmIn.stop();
  await h.close();
});

const withFees = (fees: Json[], over: Json = {}) => regularTrip(requester.netid, provider.netid, { fees, ...over });

/** The fee amounts both parties read in both reads (core lookup, platform getReservationByTransactionId). */
async function readFees(transactionId: string): Promise<string[][]> {
  const out: string[][] = [];
  for (const who of [requester, provider]) {
    const core = await lookup(h, who, transactionId);
    const platform = await h.request("GET", `/Platform.svc/getReservationByTransactionId/${transactionId}/V1`, { headers: { token: who.token } });
    expect(core.status).toBe(200);
    expect(platform.status).toBe(200);
    out.push(core.body.data.tripPacket.fees.map((f: Json) => f.fee), platform.body.data.tripPacket.fees.map((f: Json) => f.fee));
  }
  return out;
}

/** The first message `rx` got for the booking that `match` accepts, waiting for it (bounded). */
async function received(rx: ReturnType<typeof startReceiver>, transactionId: string, match: (r: Received) => boolean): Promise<Received> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const found = rx.received.find((r) => (r.json?.transactionId ?? r.json?.data?.transactionId) === transactionId && match(r));
    if (found) return found;
    if (Date.now() > deadline) throw new Error(`no matching message for ${transactionId}`);
    await Bun.sleep(20);
  }
}

async function storedCount(requesterResNo: string): Promise<number> {
  const listed = await h.request("GET", `/api/reservations?requesterResNo=${requesterResNo}`, { headers: { authorization: `Bearer ${requester.jwt}` } });
  expect(listed.status).toBe(200);
  return listed.body.data.total;
}

describe("a requester's NEW: fee lines in the currency they name", () => {
  test("JPY 5000 is \"5000\" in the answer, both reads, the webhook and the provider's copy", async () => {
    const res = await sendTrip(h, requester, withFees([{ type: "BASE", fee: 5000, currency: "JPY" }, { type: "TOLL", fee: "300.000" }]));
    expect(res.status).toBe(200);
    expect(res.body.fees.map((f: Json) => f.fee)).toEqual(["5000", "300"]);
    const { transactionId } = res.body;
    for (const fees of await readFees(transactionId)) expect(fees).toEqual(["5000", "300"]);
    const hook = await received(hooks, transactionId, (r) => r.json?.type === "booking.created");
    expect(hook.json.data.tripPacket.fees.map((f: Json) => f.fee)).toEqual(["5000", "300"]);
    const delivered = await received(farmIn, transactionId, (r) => r.headers["x-tripswitch-event-type"] === "trip.new");
    expect(delivered.json.fees.map((f: Json) => f.fee)).toEqual(["5000", "300"]);
  });

  test("BHD 12.5 is \"12.500\" (ONDEMAND too)", async () => {
    const res = await sendTrip(h, requester, withFees([{ type: "BASE", fee: 12.5, currency: "BHD" }], { reservationType: "ONDEMAND" }));
    expect(res.status).toBe(200);
    for (const fees of await readFees(res.body.transactionId)) expect(fees).toEqual(["12.500"]);
  });

  test("JPY 5000.5 is 400 naming the field, beside the request's other failing fields; nothing is stored", async () => {
    const body = withFees([{ type: "BASE", fee: "10.5", currency: "USD" }, { type: "TOLL", fee: 5000.5, currency: "JPY" }]);
    const res = await sendTrip(h, requester, body);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ success: false, code: "VALIDATION_FAILED" });
    expect(res.body.errors).toEqual([{ field: "fees[1].fee", message: "has 1 decimal; JPY has none" }]);
    expect(await storedCount(body.affiliateReservation.requesterResNo)).toBe(0);

    const both = withFees([{ fee: "5000.25", currency: "JPY" }], { passengerCount: "0" });
    const refused = await sendTrip(h, requester, both);
    expect(refused.status).toBe(400);
    expect(refused.body.errors.map((e: Json) => e.field).sort()).toEqual(["fees[0].fee", "passengerCount"]);
    expect(await storedCount(both.affiliateReservation.requesterResNo)).toBe(0);
  });

  test("USD and lines without a currency are unchanged: 75 → \"75.00\", three decimals 400", async () => {
    const res = await sendTrip(h, requester, withFees([{ type: "BASE", fee: 75, currency: "USD" }, { type: "TOLL", fee: "1.50000" }]));
    expect(res.status).toBe(200);
    for (const fees of await readFees(res.body.transactionId)) expect(fees).toEqual(["75.00", "1.50"]);
    const tooFine = await sendTrip(h, requester, withFees([{ type: "BASE", fee: "12.345" }]));
    expect(tooFine.status).toBe(400);
    expect(tooFine.body.errors).toEqual([{ field: "fees[0].fee", message: "has 3 decimals; a booking without a currency has 2" }]);
  });
});

describe("a requester's UPDATE: fee lines in the booking's currency", () => {
  test("a JPY booking: a fee without a currency is kept in yen; decimals are 400 and change nothing", async () => {
    const body = withFees([{ type: "BASE", fee: "5000", currency: "JPY" }]);
    const made = await sendTrip(h, requester, body);
    expect(made.status).toBe(200);
    const { transactionId } = made.body;
    const update = (fees: Json[]) => ({ ...body, fees, affiliateReservation: { ...body.affiliateReservation, action: "UPDATE" } });

    const refused = await sendTrip(h, requester, update([{ type: "BASE", fee: "6000.5" }]));
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({ code: "VALIDATION_FAILED", errors: [{ field: "fees[0].fee", message: "has 1 decimal; JPY has none" }] });
    for (const fees of await readFees(transactionId)) expect(fees).toEqual(["5000"]);

    // Someone else's UPDATE is 404 before its amounts are judged.
    const foreign = { ...update([{ fee: "6000.5" }]), transactionId, affiliateReservation: { requesterId: stranger.netid, action: "UPDATE" } };
    expect((await sendTrip(h, stranger, foreign)).status).toBe(404);

    const changed = await sendTrip(h, requester, update([{ type: "BASE", fee: 6000 }, { type: "TOLL", fee: "300.0" }]));
    expect(changed.status).toBe(200);
    expect(changed.body.fees.map((f: Json) => f.fee)).toEqual(["6000", "300"]);
    for (const fees of await readFees(transactionId)) expect(fees).toEqual(["6000", "300"]);
    const delivered = await received(farmIn, transactionId, (r) => r.headers["x-tripswitch-event-type"] === "trip.update");
    expect(delivered.json.fees.map((f: Json) => f.fee)).toEqual(["6000", "300"]);

    // A line naming its own currency takes that one.
    const mixed = await sendTrip(h, requester, update([{ type: "BASE", fee: 6000, currency: "JPY" }, { type: "TOLL", fee: "2.5", currency: "USD" }]));
    expect(mixed.status).toBe(200);
    for (const fees of await readFees(transactionId)) expect(fees).toEqual(["6000", "2.50"]);
  });
});
