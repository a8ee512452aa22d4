import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createHarness, type Harness } from "../../support/harness";
import { company, vehicle } from "../../support/fleet";
import { lookup, party, type Party, providerUpdate, regularTrip, sendTrip } from "../../support/trips";

// docs/integration.md#what-a-quote-offers-service-area-currency-warnings, issue 37 N13: a currency code is checked wherever money enters — fee lines of a sendTrip NEW and
// UPDATE, a provider's update, a fleet entry's rates. An unknown code, lower case, or an ISO code that is no money
// a fare is paid in (XAU gold, XTS testing, XXX …) is 400 naming the field, and nothing is saved.
let h: Harness;
let requester: Party, provider: Party;

beforeAll(async () => {
  h = createHarness();
  [requester, provider] = await Promise.all([party(h, "CUR-REQ", "CO"), party(h, "CUR-PROV", "IO")]);
});

afterAll(() => h.close());

const BAD = ["ZZZ", "usd", "Eur", "XAU", "XTS", "XXX", "US", "USDX"];
const fees = (currency: unknown) => [{ code: "BASE", name: "Base fare", fee: "100.00", currency }];
const fields = (body: { errors?: Array<{ field: string }> }) => (body.errors ?? []).map((e) => e.field);

describe("fee lines name an active ISO 4217 currency in capitals", () => {
  test.each(BAD)("a sendTrip NEW with a fee line in %s is 400 naming fees[0].currency; nothing is saved", async (currency) => {
    const before = await h.count("bookings");
    const res = await sendTrip(h, requester, regularTrip(requester.netid, provider.netid, { fees: fees(currency) }));
    expect(res.status).toBe(400);
    expect(fields(res.body)).toEqual(["fees[0].currency"]);
    expect(await h.count("bookings")).toBe(before);
  });

  test("a NEW in USD, JPY (no decimals) or BHD (three) is accepted; JPY with decimals is 400 naming the fee", async () => {
    for (const [currency, fee] of [["USD", "100.00"], ["JPY", "12000"], ["BHD", "12.500"]]) {
      const res = await sendTrip(h, requester, regularTrip(requester.netid, provider.netid, { fees: [{ code: "BASE", fee, currency }] }));
      expect(res.status).toBe(200);
    }
    const yen = await sendTrip(h, requester, regularTrip(requester.netid, provider.netid, { fees: [{ code: "BASE", fee: "12000.50", currency: "JPY" }] }));
    expect(yen.status).toBe(400);
    expect(fields(yen.body)).toEqual(["fees[0].fee"]);
  });

  test("an UPDATE and a provider update with a bad currency are 400 naming fees[0].currency; the booking keeps its fees", async () => {
    const trip = regularTrip(requester.netid, provider.netid, { fees: fees("USD") });
    const made = await sendTrip(h, requester, trip);
    expect(made.status).toBe(200);
    const id = made.body.transactionId as string;
    for (const currency of BAD) {
      const update = { ...trip, fees: fees(currency), affiliateReservation: { ...trip.affiliateReservation, action: "UPDATE" } };
      const res = await sendTrip(h, requester, update);
      expect(res.status).toBe(400);
      expect(fields(res.body)).toEqual(["fees[0].currency"]);
      const byProvider = await providerUpdate(h, provider, id, { status: "CONFIRMED", fees: fees(currency) });
      expect(byProvider.status).toBe(400);
      expect(fields(byProvider.body)).toEqual(["fees[0].currency"]);
    }
    const view = (await lookup(h, requester, id)).body.data;
    expect(view.lastStatus).toBe("BOOKING_REQUEST");
    expect(view.tripPacket.fees.map((f: { currency: string }) => f.currency)).toEqual(["USD"]);
  });
});

describe("fleet rates name an active ISO 4217 currency in capitals", () => {
  test("POST /api/fleet with usd, ZZZ, XAU or XTS is 400 naming currency; EUR is taken", async () => {
    const op = await company(h);
    for (const currency of ["usd", "ZZZ", "XAU", "XTS", "XAG"]) {
      const res = await h.request("POST", "/api/fleet", { body: vehicle({ currency }), headers: op.auth });
      expect(res.status).toBe(400);
      expect(fields(res.body)).toEqual(["currency"]);
    }
    const ok = await h.request("POST", "/api/fleet", { body: vehicle({ currency: "EUR" }), headers: op.auth });
    expect(ok.status).toBe(200);
  });
});
