import { afterEach, describe, expect, test } from "bun:test";
import { createHarness, FAST_DELIVERY, ManualClock, type Harness } from "../../../support/harness";
import { startReceiver, type Received } from "../../../support/receiver";
import { insertFleet, lookup, parties, quoteTrip, sendTrip, type Party } from "../../../support/trips";

/**
 * Converting a quote keeps the price the traveller was shown: the quote's first option (or the one named by
 * `fees[0].code`) becomes the booking's fees and totalAmount, in both reads, the requester's webhook and the
 * provider's copy.
 */

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** A requester with a webhook and a provider with a farm-in endpoint, both real servers on 127.0.0.1. */
async function setup() {
  // Starts at the real time: core JWTs are verified against the real clock.
  const clock = new ManualClock(Math.floor(Date.now() / 1000));
  const h = createHarness({ clock, delivery: FAST_DELIVERY });
  cleanups.push(() => h.close());
  const farmIn = startReceiver();
  const hooks = startReceiver();
  cleanups.push(farmIn.stop, hooks.stop);
  const { requester, provider } = await parties(h);
  const integrate = (who: Party, body: unknown) => h.request("PUT", "/api/company/integration", { headers: { authorization: `Bearer ${who.jwt}` }, body });
  expect((await integrate(provider, { deliveryUrl: `${farmIn.url}/farm-in`, luggage: "native" })).status).toBe(200);
  expect((await integrate(requester, { webhookUrl: `${hooks.url}/hooks`, webhookFormat: "events" })).status).toBe(200);
  // SFO fleet; the example quote (SFO → Cupertino) prices the sedan at 100.00, the van at 125.00, the sprinter at 240.00.
  await insertFleet(h, provider.netid, [
    { slug: "acme-sedan", type: "SEDAN", maxPassengers: 6, maxLuggage: 6, hourlyRate: "80.00" },
    { slug: "acme-van", type: "VAN", maxPassengers: 8, maxLuggage: 6, hourlyRate: "100.00" },
    { slug: "acme-sprinter", type: "SPRINTER", maxPassengers: 12, maxLuggage: 12, minimumRate: "240.00", hourlyRate: "100.00" },
  ]);
  await h.indexed();
  h.services.worker.start();
  return { h, clock, farmIn, hooks, requester, provider };
}

/** The quote, sent and answered; the example's preferred SPRINTER is dropped so that the options are cheapest first. */
async function quote(h: Harness, requester: Party, provider: Party) {
  const body = quoteTrip(requester.netid, provider.netid);
  delete body.preferredVehicleType;
  const res = await sendTrip(h, requester, body);
  expect(res.status).toBe(200);
  expect(res.body.status).toBe("QUOTE");
  expect(res.body.fees.length).toBeGreaterThan(1);
  return { body, answer: res.body as { transactionId: string; fees: Array<{ code: string; fee: string; currency: string }>; totalAmount: string } };
}

/** The received message of `type` (X-TripSwitch-Event-Type) for the booking, waiting for it (bounded). */
async function messageOf(rx: ReturnType<typeof startReceiver>, type: string, transactionId: string): Promise<Received> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const found = rx.received.find((r) => r.headers["x-tripswitch-event-type"] === type && (r.json?.transactionId ?? r.json?.data?.transactionId) === transactionId);
    if (found) return found;
    if (Date.now() > deadline) throw new Error(`no ${type} message for ${transactionId}`);
    await Bun.sleep(20);
  }
}

/** Both reads of the booking (core lookup, platform getReservationByTransactionId) as the requester. */
async function bothReads(h: Harness, who: Party, transactionId: string) {
  const core = await lookup(h, who, transactionId);
  const platform = await h.request("GET", `/Platform.svc/getReservationByTransactionId/${transactionId}/V1`, { headers: { token: who.token } });
  expect(core.status).toBe(200);
  expect(platform.status).toBe(200);
  return [core.body.data.tripPacket, platform.body.data.tripPacket];
}

/** Everything a conversion must show: the chosen option as the only fee line and its fee as totalAmount. */
async function expectPriceEverywhere(
  ctx: Awaited<ReturnType<typeof setup>>,
  transactionId: string,
  option: { code: string; fee: string; currency: string },
) {
  const { h, farmIn, hooks, requester, provider } = ctx;
  for (const packet of [...(await bothReads(h, requester, transactionId)), ...(await bothReads(h, provider, transactionId))]) {
    expect(packet.fees).toHaveLength(1);
    expect(packet.fees[0]).toMatchObject(option);
    expect(packet.totalAmount).toBe(option.fee);
    expect(packet.changeLogs.some((l: { changeDesc: string }) => l.changeDesc.includes(`option ${option.code} at ${option.fee} ${option.currency}`))).toBe(true);
  }
  const hook = await messageOf(hooks, "booking.created", transactionId);
  expect(hook.json.data.lastStatus).toBe("BOOKING_REQUEST");
  expect(hook.json.data.tripPacket.fees).toEqual([expect.objectContaining(option)]);
  expect(hook.json.data.tripPacket.totalAmount).toBe(option.fee);
  const delivered = await messageOf(farmIn, "trip.new", transactionId);
  expect(delivered.json.reservationType).toBe("REGULAR");
  expect(delivered.json.fees).toEqual([expect.objectContaining(option)]);
  expect(delivered.json.totalAmount).toBe(option.fee);
}

describe("converting a quote keeps its price", () => {
  test("without a code: the quote's first option is booked, shown in both reads, the webhook and the provider's copy", async () => {
    const ctx = await setup();
    const { h, requester, provider } = ctx;
    const { body, answer } = await quote(h, requester, provider);
    expect(answer.totalAmount).toBe(answer.fees[0].fee);
    const booked = await sendTrip(h, requester, { ...body, reservationType: "REGULAR" });
    expect(booked.status).toBe(200);
    expect(booked.body).toMatchObject({ transactionId: answer.transactionId, status: "BOOKING_REQUEST", totalAmount: answer.fees[0].fee });
    expect(booked.body.fees.map((f: { code: string }) => f.code)).toEqual([answer.fees[0].code]);
    await expectPriceEverywhere(ctx, answer.transactionId, { code: answer.fees[0].code, fee: answer.fees[0].fee, currency: answer.fees[0].currency });
    const [packet] = await bothReads(h, requester, answer.transactionId);
    expect(packet.changeLogs.some((l: { changeDesc: string }) => l.changeDesc.includes(`first option ${answer.fees[0].code}`))).toBe(true);
  });

  test("with a code: that option is booked at its price", async () => {
    const ctx = await setup();
    const { h, requester, provider } = ctx;
    const { body, answer } = await quote(h, requester, provider);
    const option = answer.fees.at(-1)!;
    expect(option.code).not.toBe(answer.fees[0].code);
    const booked = await sendTrip(h, requester, { ...body, reservationType: "REGULAR", fees: [{ code: option.code }] });
    expect(booked.status).toBe(200);
    expect(booked.body.totalAmount).toBe(option.fee);
    await expectPriceEverywhere(ctx, answer.transactionId, { code: option.code, fee: option.fee, currency: option.currency });
  });

  test("an unknown code: 400 naming fees[0].code; the quote stays a quote and nothing is delivered as a booking", async () => {
    const { h, farmIn, requester, provider } = await setup();
    const { body, answer } = await quote(h, requester, provider);
    const res = await sendTrip(h, requester, { ...body, reservationType: "REGULAR", fees: [{ code: "no-such-car" }] });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ success: false, code: "VALIDATION_FAILED" });
    expect(res.body.errors.map((e: { field: string }) => e.field)).toEqual(["fees[0].code"]);
    const [packet] = await bothReads(h, requester, answer.transactionId);
    expect(packet.status).toBe("QUOTE");
    expect(packet.fees.map((f: { code: string }) => f.code)).toEqual(answer.fees.map((f) => f.code));
    await messageOf(farmIn, "quote.new", answer.transactionId);
    expect(farmIn.received.some((r) => r.headers["x-tripswitch-event-type"] === "trip.new")).toBe(false);
  });

  test("after validUntil: 409 QUOTE_EXPIRED, with or without a code", async () => {
    const { h, clock, requester, provider } = await setup();
    const { body, answer } = await quote(h, requester, provider);
    clock.advance(24 * 3600 + 1);
    for (const fees of [[], [{ code: answer.fees[0].code }]]) {
      const res = await sendTrip(h, requester, { ...body, reservationType: "REGULAR", fees });
      expect(res.status).toBe(409);
      expect(res.body).toMatchObject({ success: false, code: "QUOTE_EXPIRED" });
    }
    const [packet] = await bothReads(h, requester, answer.transactionId);
    expect(packet.status).toBe("QUOTE");
    expect(packet.totalAmount).toBe(answer.totalAmount);
  });
});
