import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createHarness, ManualClock, type Harness } from "../../../support/harness";
import { insertFleet, party, type Party } from "../../../support/trips";
import { importFxRates } from "../../../../domain/usecases/fx-rates";
import { dayOf } from "../../../../domain/fx/fx-table";

/**
 * Names and amounts everywhere (docs/rates.md#setting-the-card, docs/terms.md#the-cascade-fallback) through HTTP: a
 * card's surcharge and extra names follow the name rules; `fallback.maxFee` the minor unit of the currency it caps; a
 * fare past 2^53 minor units is never offered, every offered breakdown sums exactly to its fee, and a converted fee is
 * written out exactly in digits.
 */
const clock = new ManualClock(Math.floor(Date.now() / 1000));
let h: Harness;
let maker: Party, absurd: Party, dear: Party, yen: Party;

const JFK = { lat: 40.6413, lon: -73.7781 };
const NRT = { lat: 35.772, lon: 140.3929 };
const bearer = (who: Party) => ({ authorization: `Bearer ${who.jwt}` });
const putCard = (who: Party, card: unknown) => h.request("PUT", "/api/company/rates", { headers: bearer(who), body: card });
const quote = (body: Record<string, unknown>) => h.request("POST", "/api/quotes", { headers: bearer(maker), body });
const iso = (unix: number) => new Date(unix * 1000).toISOString().slice(0, 19);

/** A KWD card pricing 1,000,000 KWD a km, with 200 airport surcharges of `percent` % at JFK: every amount within bounds. */
const kwdCard = (percent: number) => ({
  currency: "KWD",
  distance: [{ id: "km", base: "0", includedKm: 0, perKm: "1000000" }],
  surcharges: Array.from({ length: 200 }, (_, i) => ({ id: `jfk-${i}`, kind: "airportPickup", airports: ["JFK"], percent })),
});
/** JFK to Las Vegas: 4,654 km of road, within a maxTripKm of 5,000. */
const toVegas = (currency?: string) => ({
  passengerCount: "2",
  locations: {
    pickup: { locationType: "airport", address: "JFK", time: iso(clock.now() + 3 * 86_400) },
    dropOff: { locationType: "address", address: "Las Vegas Strip", lat: "36.1147", lon: "-115.1728" },
  },
  ...(currency ? { currency } : {}),
});
/** The sum of decimal amounts, exactly, in the minor units of `digits` decimals. */
const unitsOf = (amount: string, digits: number) => {
  const [whole, fraction = ""] = amount.split(".");
  return BigInt(whole + fraction.padEnd(digits, "0"));
};

beforeAll(async () => {
  h = createHarness({ clock });
  [maker, absurd, dear, yen] = await Promise.all([
    party(h, "NA-BOOKWELL", "CO"),
    party(h, "NA-ABSURD", "IO"),
    party(h, "NA-DEAR", "IO"),
    party(h, "NA-YEN", "IO"),
  ]);
  for (const p of [absurd, dear]) {
    expect((await h.request("PUT", "/api/company/integration", { headers: bearer(p), body: { maxTripKm: 5000 } })).status).toBe(200);
    await insertFleet(h, p.netid, [{ slug: `${p.netid.toLowerCase()}-sedan`, maxPassengers: 4, maxLuggage: 4, ...JFK, airports: ["JFK"], hourlyRate: "1.000", currency: "KWD" }]);
  }
  await insertFleet(h, yen.netid, [{ slug: "yen-sedan", maxPassengers: 4, maxLuggage: 4, ...NRT, airports: ["NRT"], hourlyRate: "9000", currency: "JPY" }]);
  // Today's table with KWD and a currency at a million per euro (within the bounds an FX table may hold).
  await importFxRates(h.services.fx, { date: dayOf(clock.now()), rates: [["KWD", "0.3282"], ["USD", "1.0705"], ["JPY", "171.94"], ["VND", "1000000"]] });
});

afterAll(async () => {
  await h.close();
});

describe("surcharge and extra names", () => {
  test.each([
    ["U+2028", "Night\u2028rate"],
    ["U+202E", "Airport \u202Eeef"],
    ["U+0007", "Seat\u0007"],
    ["U+001B", "\u001B[2JSeat"],
  ])("a name with %s is 400 naming each field and the character; nothing is saved", async (character, name) => {
    const res = await putCard(dear, {
      currency: "KWD",
      distance: [{ id: "km", base: "10", perKm: "1" }],
      surcharges: [{ id: "night", kind: "night", from: "22:00", to: "06:00", percent: 20, name }],
      extras: [{ code: "CHILD_SEAT", price: "5", name }],
    });
    expect(res.status).toBe(400);
    expect(res.body.errors.map((e: { field: string }) => e.field)).toEqual(["surcharges[0].name", "extras[0].name"]);
    for (const e of res.body.errors) expect(e.message).toContain(character);
    expect((await h.request("GET", "/api/company/rates", { headers: bearer(dear) })).status).toBe(404);
  });
});

describe("a fare past 2^53 minor units, and its conversion", () => {
  test("is never offered; every offered breakdown sums exactly to its fee; the converted fee is exact, in digits", async () => {
    expect((await putCard(absurd, kwdCard(1000))).status).toBe(200);
    expect((await putCard(dear, kwdCard(900))).status).toBe(200);
    const res = await quote(toVegas("VND"));
    expect(res.status).toBe(200);
    const options = res.body.data.options as Array<Record<string, any>>;
    expect(options.map((o) => o.provider.netid)).toEqual([dear.netid]);
    const [option] = options;
    const fee = unitsOf(option.fee, 3);
    expect(fee).toBeLessThanOrEqual(BigInt(Number.MAX_SAFE_INTEGER));
    expect(option.breakdown.reduce((sum: bigint, l: { amount: string }) => sum + unitsOf(l.amount, 3), 0n)).toBe(fee);
    // fee (fils) × the rate shown (VND per KWD), half up to whole dong.
    const { fee: converted, rate } = option.converted;
    expect(converted).toMatch(/^\d+$/);
    const [mantissa, exponent] = (rate as number).toExponential().split("e");
    const [whole, fraction = ""] = mantissa.split(".");
    const shift = Number(exponent) - fraction.length - 3;
    const product = fee * BigInt(whole + fraction);
    const exact = shift >= 0 ? product * 10n ** BigInt(shift) : (product * 2n + 10n ** BigInt(-shift)) / (2n * 10n ** BigInt(-shift));
    expect(converted).toBe(exact.toString());
  });
});

describe("fallback.maxFee follows the minor unit of the currency it caps (docs/terms.md#the-cascade-fallback)", () => {
  let day = 3;
  /** A trip from Narita on another day each time: a vehicle booked before is held on its day. */
  const tokyo = (currency?: string) => ({
    passengerCount: "2",
    locations: {
      pickup: { locationType: "airport", address: "NRT", time: iso(clock.now() + ++day * 86_400) },
      dropOff: { locationType: "address", address: "Tokyo Station", lat: "35.6812", lon: "139.7671" },
    },
    ...(currency ? { currency } : {}),
  });
  let resNo = 0;
  const book = async (currency: string | undefined, maxFee: string) => {
    const q = await quote(tokyo(currency));
    expect(q.status).toBe(200);
    const option = q.body.data.options[0];
    return h.request("POST", `/api/quotes/${q.body.data.quoteId}/book`, {
      headers: bearer(maker),
      body: { quoteOptionId: option.quoteOptionId, requesterResNo: `NA-${++resNo}`, passengers: [{ firstName: "Ada", lastName: "King" }], fallback: { maxFee } },
    });
  };

  test("a JPY option's cap with decimals is 400 naming fallback.maxFee; nothing is booked", async () => {
    const res = await book(undefined, "12000.5");
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([{ field: "fallback.maxFee", message: expect.stringContaining("JPY has none") }]);
    expect((await h.request("GET", "/api/reservations", { headers: bearer(maker) })).body.data.total).toBe(0);
    expect((await book(undefined, "12000")).status).toBe(200);
  });

  test("shown converted into USD, the cap is in USD: two decimals are taken, three are not", async () => {
    expect((await book("USD", "120.55")).status).toBe(200);
    const res = await book("USD", "120.555");
    expect(res.status).toBe(400);
    expect(res.body.errors[0]).toMatchObject({ field: "fallback.maxFee", message: expect.stringContaining("USD has 2") });
  });
});
