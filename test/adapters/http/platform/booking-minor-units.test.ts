import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createHarness, FAST_DELIVERY, ManualClock, type Harness } from "../../../support/harness";
import { startReceiver, type Received } from "../../../support/receiver";
import { sumAmounts } from "../../../../domain/trips/fare-lines";
import { insertFleet, lookup, parties, party, providerUpdate, quoteTrip, regularTrip, sendTrip, type Party } from "../../../support/trips";

/**
 * docs/integration.md#what-a-quote-offers-service-area-currency-warnings after the quote: amounts the provider writes (providerUpdate… fees, totalAmount) and prices a
 * farm-in partner's reply carries take the booking's currency's minor unit (JPY none, BHD 3, USD 2); a booking
 * without a currency keeps two decimals. A provider's own write with too many decimals is 400 naming the field; a
 * partner's reply, which cannot be refused, is rounded half up as quotes are priced.
 */

type Json = Record<string, any>;
/** Two amounts added exactly, as the exchange adds them (minor units). */
const plus = (a: string, b: string) => sumAmounts([a, b])!;

// Starts at the real time: core JWTs are verified against the real clock.
const clock = new ManualClock(Math.floor(Date.now() / 1000));
let h: Harness;
let requester: Party, usd: Party, yen: Party, dinar: Party, yenFarm: Party;
let hooks: ReturnType<typeof startReceiver>;
let farmIn: ReturnType<typeof startReceiver>;

/** Each booked quote picks up on a day of its own: a booked quote holds its vehicle over the trip (docs/availability.md). */
let bookedDays = 0;
const pickupTime = () => `${new Date(Date.UTC(2027, 2, 10 + bookedDays++)).toISOString().slice(0, 10)}T10:00:00`;
const NRT = { lat: 35.7647, lon: 140.3864 };
const BAH = { lat: 26.2708, lon: 50.6336 };
const JFK = { lat: 40.6398, lon: -73.7787 };

/** A quote to `provider` from the airport `code` (to a place near it), converted into a booking: its transactionId and chosen option. */
async function bookedQuote(provider: Party, code: string, dropOff: Json): Promise<{ transactionId: string; option: Json }> {
  const body = quoteTrip(requester.netid, provider.netid, {
    passengerCount: "2",
    preferredVehicleType: undefined,
    totalTripDuration: "60",
    locations: { pickup: { locationType: "airport", address: code, time: pickupTime() }, dropOff },
  });
  const quoted = await sendTrip(h, requester, body);
  expect(quoted.status).toBe(200);
  expect(quoted.body.fees.length).toBeGreaterThan(0);
  const booked = await sendTrip(h, requester, { ...body, reservationType: "REGULAR" });
  expect(booked.status).toBe(200);
  expect(booked.body.status).toBe("BOOKING_REQUEST");
  return { transactionId: quoted.body.transactionId, option: quoted.body.fees[0] };
}

/** Both reads (core lookup, platform getReservationByTransactionId), as each party. */
async function allReads(transactionId: string, provider: Party): Promise<Json[]> {
  const packets: Json[] = [];
  for (const who of [requester, provider]) {
    const core = await lookup(h, who, transactionId);
    const platform = await h.request("GET", `/Platform.svc/getReservationByTransactionId/${transactionId}/V1`, { headers: { token: who.token } });
    expect(core.status).toBe(200);
    expect(platform.status).toBe(200);
    packets.push(core.body.data.tripPacket, platform.body.data.tripPacket);
  }
  return packets;
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

/**
 * The provider's update of the booking's price (status CONFIRMED), answered: the booked (quoted) line as it is, then a
 * line it adds (docs/terms.md#the-price-is-the-sum-of-its-lines) of `fee`; without a quoted line, that line alone.
 */
const updatePrice = (provider: Party, transactionId: string, quoted: Json | undefined, fee: unknown, totalAmount: unknown, currency?: string) =>
  providerUpdate(h, provider, transactionId, {
    status: "CONFIRMED",
    totalAmount,
    fees: [...(quoted ? [{ code: quoted.code, fee: quoted.fee }] : []), { type: "CHARGE", code: "WAITING", fee, ...(currency ? { currency } : {}) }],
  });

/** The price is stored, shown in both reads to both parties and sent in the requester's webhook. */
async function expectPriceEverywhere(transactionId: string, provider: Party, fees: string[], total: string) {
  for (const packet of await allReads(transactionId, provider)) {
    expect(packet.fees.map((f: Json) => f.fee)).toEqual(fees);
    expect(packet.totalAmount).toBe(total);
  }
  const hook = await received(hooks, transactionId, (r) => r.json?.data?.tripPacket?.totalAmount === total);
  expect(hook.json.data.tripPacket.fees.map((f: Json) => f.fee)).toEqual(fees);
}

beforeAll(async () => {
  h = createHarness({ clock, delivery: FAST_DELIVERY });
  ({ requester, provider: usd } = await parties(h));
  [yen, dinar, yenFarm] = await Promise.all([party(h, "TOKYO-HIRE", "IO"), party(h, "GULF-LIMO", "IO"), party(h, "NARITA-FARM", "IO")]);
  hooks = startReceiver();
  // The farm-in partner adds a toll in its reply, after the booked line (docs/terms.md#the-price-is-the-sum-of-its-lines):
  // yen with decimals a yen amount cannot have, the total half a yen above the booked fee + 199.
  farmIn = startReceiver((r) => {
    if (r.headers["x-tripswitch-event-type"] !== "trip.new") return Response.json({});
    const booked = r.json.fees[0];
    const totalAmount = `${BigInt(booked.fee) + 199n}.5`;
    return Response.json({ success: true, reservationId: `NF-${r.json.transactionId.slice(0, 8)}`, totalAmount, fees: [booked, { type: "CHARGE", code: "TOLL", fee: 199.5, currency: "JPY" }] });
  });
  const integrate = (who: Party, body: unknown) => h.request("PUT", "/api/company/integration", { headers: { authorization: `Bearer ${who.jwt}` }, body });
  expect((await integrate(requester, { webhookUrl: `${hooks.url}/hooks`, webhookFormat: "events" })).status).toBe(200);
  expect((await integrate(yenFarm, { deliveryUrl: `${farmIn.url}/farm-in` })).status).toBe(200);
  await insertFleet(h, usd.netid, [{ slug: "usd-jfk", maxPassengers: 4, maxLuggage: 4, ...JFK, airports: ["JFK"], currency: "USD", hourlyRate: "75.00" }]);
  await insertFleet(h, yen.netid, [{ slug: "tokyo-sedan", maxPassengers: 4, maxLuggage: 4, ...NRT, airports: ["NRT"], currency: "JPY", hourlyRate: "6000" }]);
  await insertFleet(h, dinar.netid, [{ slug: "gulf-sedan", maxPassengers: 4, maxLuggage: 4, ...BAH, airports: ["BAH"], currency: "BHD", hourlyRate: "10.25", minimumRate: "0" }]);
  await insertFleet(h, yenFarm.netid, [{ slug: "narita-van", maxPassengers: 4, maxLuggage: 4, ...NRT, airports: ["NRT"], currency: "JPY", hourlyRate: "6500" }]);
  h.services.worker.start();
});

afterAll(async () => {
  hooks.stop();
  farmIn.stop();
  await h.close();
});

const TOKYO = { address: "Tokyo Station", lat: "35.6812", lon: "139.7671" };
const MANAMA = { address: "Manama Souq", lat: "26.2361", lon: "50.5759" };
const QUEENS = { address: "Flushing", lat: "40.7675", lon: "-73.8331" };

describe("a provider's amounts take the booking's currency's minor unit", () => {
  test("JPY: an added line and total of 5000 more are stored as \"5000\", in both reads and the webhook", async () => {
    const { transactionId, option } = await bookedQuote(yen, "NRT", TOKYO);
    expect(option.currency).toBe("JPY");
    const total = plus(option.fee, "5000");
    const res = await updatePrice(yen, transactionId, option, 5000, total);
    expect(res.status).toBe(200);
    await expectPriceEverywhere(transactionId, yen, [option.fee, "5000"], total);
  });

  test("JPY: decimals a yen amount cannot have are 400 naming each field; nothing changes", async () => {
    const { transactionId, option } = await bookedQuote(yen, "NRT", TOKYO);
    const res = await updatePrice(yen, transactionId, option, "5000.5", 5000.25);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ success: false, code: "VALIDATION_FAILED" });
    expect(res.body.errors).toEqual([
      { field: "totalAmount", message: "has 2 decimals; JPY has none" },
      { field: "fees[1].fee", message: "has 1 decimal; JPY has none" },
    ]);
    // Zeros past the unit are no decimals: "5000.00" is 5000.
    for (const packet of await allReads(transactionId, yen)) {
      expect(packet.status).toBe("BOOKING_REQUEST");
      expect(packet.totalAmount).toBe(option.fee);
    }
    const total = plus(option.fee, "5000");
    expect((await updatePrice(yen, transactionId, option, "5000.00", `${total}.00`)).status).toBe(200);
    await expectPriceEverywhere(transactionId, yen, [option.fee, "5000"], total);
  });

  test("BHD: 12.5 is stored as \"12.500\"; a fourth decimal is 400", async () => {
    const { transactionId, option } = await bookedQuote(dinar, "BAH", MANAMA);
    expect(option.currency).toBe("BHD");
    expect(option.fee).toMatch(/^\d+\.\d{3}$/);
    const tooFine = await updatePrice(dinar, transactionId, option, "12.5004", "12.5");
    expect(tooFine.status).toBe(400);
    expect(tooFine.body.errors).toEqual([{ field: "fees[1].fee", message: "has 4 decimals; BHD has 3" }]);
    const total = plus(option.fee, "12.500");
    expect((await updatePrice(dinar, transactionId, option, 12.5, total)).status).toBe(200);
    await expectPriceEverywhere(transactionId, dinar, [option.fee, "12.500"], total);
  });

  test("a line in another currency than the booking's is 400 naming its currency: a total sums one currency", async () => {
    const { transactionId, option } = await bookedQuote(dinar, "BAH", MANAMA);
    const res = await updatePrice(dinar, transactionId, option, "1500", undefined, "JPY");
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([{ field: "fees[1].currency", message: "must be BHD, the booking's currency" }]);
    for (const packet of await allReads(transactionId, dinar)) expect(packet.totalAmount).toBe(option.fee);
  });

  test("USD is unchanged: 75 → \"75.00\"; three decimals are 400", async () => {
    const { transactionId, option } = await bookedQuote(usd, "JFK", QUEENS);
    expect(option.currency).toBe("USD");
    expect((await updatePrice(usd, transactionId, option, "75.001", undefined)).status).toBe(400);
    const total = plus(option.fee, "75.00");
    expect((await updatePrice(usd, transactionId, option, 75, total)).status).toBe(200);
    await expectPriceEverywhere(transactionId, usd, [option.fee, "75.00"], total);
  });

  test("a booking without a currency (no fees) keeps two decimals", async () => {
    const booked = await sendTrip(h, requester, regularTrip(requester.netid, yen.netid, { fees: [], totalAmount: undefined }));
    expect(booked.status).toBe(200);
    const transactionId = booked.body.transactionId;
    expect((await updatePrice(yen, transactionId, undefined, 5000, 5000)).status).toBe(200);
    await expectPriceEverywhere(transactionId, yen, ["5000.00"], "5000.00");
  });
});

describe("a farm-in partner's reply takes the booking's currency's minor unit", () => {
  test("a JPY booking: the reply's 199.5 toll and its total half a yen above fee + 199 are kept as 200 and fee + 200", async () => {
    const { transactionId, option } = await bookedQuote(yenFarm, "NRT", TOKYO);
    expect(option.currency).toBe("JPY");
    await received(farmIn, transactionId, (r) => r.headers["x-tripswitch-event-type"] === "trip.new");
    const deadline = Date.now() + 10_000;
    let packets = await allReads(transactionId, yenFarm);
    while (packets[0].totalAmount === option.fee && Date.now() < deadline) {
      await Bun.sleep(25);
      packets = await allReads(transactionId, yenFarm);
    }
    const total = plus(option.fee, "200");
    for (const packet of packets) {
      expect(packet.totalAmount).toBe(total);
      expect(packet.fees.map((f: Json) => f.fee)).toEqual([option.fee, "200"]);
    }
    const hook = await received(hooks, transactionId, (r) => r.json?.data?.tripPacket?.totalAmount === total);
    expect(hook.json.data.tripPacket.fees.map((f: Json) => f.fee)).toEqual([option.fee, "200"]);
  });
});
