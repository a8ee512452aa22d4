import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { PackagedAirportDirectory } from "../../../adapters/airports/directory";
import example from "../../../adapters/http/examples/rate-card.json";
import { validateRateCard } from "../../../domain/pricing/card";
import { cardQuote, compileCard, type PricedTrip } from "../../../domain/pricing/card-pricing";
import { DEMO_RATE_CARDS } from "../../../src/demo/rates";

// docs/rates.md#how-a-vehicle-is-priced, worked through the card pricer: the order of the base (hourly, route, distance
// band, own rates), no price for a base of 0, the minimum fare before the extras, and the documents' worked examples.
const airports = new PackagedAirportDirectory();
const ctx = { minorUnit: () => 2, defaultCurrency: undefined, airportKnown: (iata: string) => airports.lookup(iata) !== undefined };
const compiled = (card: unknown) => compileCard(validateRateCard(card, ctx), 2, (iata) => airports.lookup(iata));
const JFK = { lat: airports.lookup("JFK")!.lat, lon: airports.lookup("JFK")!.lon };
const TIMES_SQUARE = { lat: 40.7601, lon: -73.984 };
const toMidtown = (over: Partial<PricedTrip> = {}): PricedTrip => ({
  pickup: JFK,
  pickupAirport: "JFK",
  dropOff: TIMES_SQUARE,
  hourly: false,
  quarterHours: 4,
  localTime: "2027-03-10T12:00",
  extras: [],
  ...over,
});
/** The distance bands docs/rates.md#distance-bands shows (a part of a card), read from the page. */
const RATES_PAGE = readFileSync(join(import.meta.dir, "../../../docs/rates.md"), "utf8");
const RATES_PAGE_BANDS = JSON.parse(`{${/### Distance bands[\s\S]*?```json\n([\s\S]*?)```/.exec(RATES_PAGE)![1]}}`).distance as object[];
const amounts = (lines: Array<{ id?: string; code?: string; amount: string }>) => lines.map((l) => [l.id ?? l.code, l.amount]);

describe("the worked examples", () => {
  test("the JFK night transfer with a child seat is 141.00; on Christmas Eve without the seat, 176.50", () => {
    const night = cardQuote(compiled(example), toMidtown({ localTime: "2027-03-10T23:30", extras: [{ code: "CHILD_SEAT", quantity: 1 }] })).price("SEDAN", 7000);
    expect(night.units).toBe(14100);
    expect(amounts(night.lines)).toEqual([["jfk-midtown", "95.00"], ["jfk-fee", "15.00"], ["night", "19.00"], ["CHILD_SEAT", "12.00"]]);
    for (const card of [example, DEMO_RATE_CARDS["ACME-LIMO"]]) {
      const eve = cardQuote(compiled(card), toMidtown({ localTime: "2027-12-24T23:30" })).price("SEDAN", 7000);
      expect(eve.units).toBe(17650);
      expect(eve.lines.map((l) => l.amount)).toEqual(["95.00", "15.00", "19.00", "47.50"]);
    }
  });
});

describe("the base", () => {
  test("an hourly trip takes its type's hourly rate before any route: a 5-hour hire on Acme's card is 390.00", () => {
    const acme = compiled(DEMO_RATE_CARDS["ACME-LIMO"]);
    expect(cardQuote(acme, toMidtown({ hourly: true, quarterHours: 20 })).price("SEDAN", 7000)).toEqual({
      units: 39000,
      lines: [
        { kind: "BASE", id: "acme-sedan-hour", name: "Hourly, 5 h", amount: "375.00" },
        { kind: "SURCHARGE", id: "nyc-airport-fee", name: "Airport pickup (NY airports)", amount: "15.00" },
      ],
    });
    // A type without an hourly rate still takes its route on an hourly trip.
    const card = compiled({ ...example, hourly: [] });
    expect(cardQuote(card, toMidtown({ hourly: true, quarterHours: 20 })).price("SEDAN", 7000).lines[0].id).toBe("jfk-midtown");
  });

  test("a route applies only when one of its two zones holds every stop; the distance runs through them", () => {
    const card = compiled(example);
    const grandCentral = { lat: 40.7527, lon: -73.9772 };
    const philadelphia = { lat: 39.9526, lon: -75.1635 };
    expect(cardQuote(card, toMidtown({ stops: [grandCentral] })).price("SEDAN", 7000).lines[0].id).toBe("jfk-midtown");
    // A stop at JFK (the route's other zone) too.
    expect(cardQuote(card, toMidtown({ stops: [JFK, grandCentral] })).price("SEDAN", 7000).lines[0].id).toBe("jfk-midtown");
    const far = cardQuote(card, toMidtown({ stops: [philadelphia] })).price("SEDAN", 7000);
    expect(far.lines[0]).toMatchObject({ id: "sedan-km" });
    // A stop nothing places: no route (it cannot be shown to lie in the zones), no leg.
    const unplaced = cardQuote(card, toMidtown({ stops: [undefined] })).price("SEDAN", 7000);
    expect(unplaced.lines[0]).toMatchObject({ id: "sedan-km", name: "Distance, 28.4 km" });
  });

  test("distance bands, as docs/rates.md#distance-bands shows them: a type's first rule whose band holds the trip", () => {
    const card = compiled({ ...example, routes: [], distance: RATES_PAGE_BANDS });
    const at = (roadKm: number) => cardQuote(card, toMidtown({ pickupAirport: undefined, roadKm })).price("SEDAN", 7000).lines[0];
    expect(at(12)).toMatchObject({ id: "sedan-city", amount: "60.00" });
    expect(at(20)).toMatchObject({ id: "sedan-city", amount: "80.00" });
    expect(at(40)).toMatchObject({ id: "sedan-km", amount: "132.00" });
    expect(RATES_PAGE).toContain("A 12 km sedan trip is `sedan-city` (30.00 + 2.50 × 12 = 60.00); a 40 km one is `sedan-km` (60.00 + 2.40 × 30 =\n132.00)");
    // Swapped, the page says, the card is 400 naming distance[1].
    expect(() => validateRateCard({ ...example, distance: [...RATES_PAGE_BANDS].reverse() }, ctx)).toThrow(
      expect.objectContaining({ errors: [expect.objectContaining({ field: "distance[1]" })] }),
    );
    // Beyond every band of its type (and no rule without one): the vehicle's own rates.
    const banded = compiled({ ...example, routes: [], distance: [{ id: "short", base: "30.00", includedKm: 0, perKm: "2.50", upToKm: 20 }] });
    expect(cardQuote(banded, toMidtown({ pickupAirport: undefined, roadKm: 40 })).price("SEDAN", 7000).lines[0]).toMatchObject({ id: "vehicle-rate", amount: "70.00" });
  });

  test("a base of 0 is no price, whatever the surcharges and the minimum fare would add", () => {
    const quote = cardQuote(compiled(example), toMidtown({ localTime: "2027-03-10T23:30", extras: [{ code: "CHILD_SEAT", quantity: 1 }] }));
    expect(quote.price("VAN", 0)).toEqual({ units: 0, lines: [] });
    expect(quote.units("VAN", 0)).toBe(0);
    // A rule pricing 0 is no price either.
    const free = cardQuote(compiled({ ...example, routes: [{ ...example.routes[0], price: "0" }] }), toMidtown());
    expect(free.cardUnits("SEDAN")).toBe(0);
    expect(free.units("SEDAN", 7000)).toBe(0);
  });
});

describe("the minimum fare", () => {
  test("tops up base + surcharges before the extras: a child seat adds its 12.00", () => {
    const queens = toMidtown({ pickup: { lat: 40.66, lon: -73.8 }, pickupAirport: undefined, dropOff: { lat: 40.67, lon: -73.8 } });
    const card = compiled(example);
    expect(cardQuote(card, queens).price("WAGON", 4000)).toEqual({
      units: 4500,
      lines: [
        { kind: "BASE", id: "vehicle-rate", name: "Vehicle rate", amount: "40.00" },
        { kind: "MINIMUM", id: "minimumFare", name: "Minimum fare", amount: "5.00" },
      ],
    });
    const seat = cardQuote(card, { ...queens, extras: [{ code: "CHILD_SEAT", quantity: 1 }] });
    expect(seat.price("WAGON", 4000).units).toBe(5700);
    expect(amounts(seat.price("WAGON", 4000).lines)).toEqual([["vehicle-rate", "40.00"], ["minimumFare", "5.00"], ["CHILD_SEAT", "12.00"]]);
    expect(seat.units("WAGON", 4000)).toBe(5700);
  });
});

describe("a fare past 2^53 minor units (docs/rates.md#setting-the-card)", () => {
  // Every amount within 1,000,000, yet 200 surcharges of 1,000 % on a 4,900 km trip (a 3-decimal currency) add up past 2^53.
  const card = (percent: number) =>
    compileCard(
      validateRateCard(
        {
          currency: "KWD",
          distance: [{ id: "km", base: "0", includedKm: 0, perKm: "1000000" }],
          surcharges: Array.from({ length: 200 }, (_, i) => ({ id: `s${i}`, kind: "airportPickup", airports: ["JFK"], percent })),
          extras: [{ code: "CHILD_SEAT", price: "0.001" }],
        },
        { ...ctx, minorUnit: () => 3 },
      ),
      3,
      (iata) => airports.lookup(iata),
    );
  const far = toMidtown({ dropOff: { lat: 36.084, lon: -115.1537 }, roadKm: 4900, extras: [{ code: "CHILD_SEAT", quantity: 1 }] });

  test("is no price: never offered, the lines never summing to something else than the fee", () => {
    const quote = cardQuote(card(1000), far);
    expect(quote.price("SEDAN", 1000)).toEqual({ units: 0, lines: [] });
    expect(quote.units("SEDAN", 1000)).toBe(0);
    expect(quote.cardUnits("SEDAN")).toBe(0);
  });

  test("just below it the fee is exact and its lines sum to it", () => {
    const quote = cardQuote(card(900), far);
    const priced = quote.price("SEDAN", 1000);
    expect(Number.isSafeInteger(priced.units)).toBe(true);
    expect(priced.units).toBe(quote.units("SEDAN", 1000));
    const sum = priced.lines.reduce((s, l) => s + BigInt(l.amount.replace(".", "")), 0n);
    expect(sum).toBe(BigInt(priced.units));
  });
});

describe("surcharge and extra names stored before the name rules", () => {
  test("a name with a control or text-direction character shows the default instead", () => {
    const stored = validateRateCard({ ...example, surcharges: [], extras: [{ code: "CHILD_SEAT", price: "12.00" }] }, ctx);
    stored.surcharges = [{ id: "night", kind: "night", from: "22:00", to: "06:00", percent: 20, name: "Night\u202Eeulav" }];
    stored.extras = [{ code: "CHILD_SEAT", name: "Seat\u0007\u001B[2J", price: "12.00" }];
    const priced = cardQuote(compileCard(stored, 2, (iata) => airports.lookup(iata)), toMidtown({ localTime: "2027-03-10T23:30", extras: [{ code: "CHILD_SEAT", quantity: 1 }] })).price("SEDAN", 7000);
    expect(priced.lines.filter((l) => l.kind !== "BASE").map((l) => l.name)).toEqual(["Night surcharge", "CHILD_SEAT"]);
  });
});
