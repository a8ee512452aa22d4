import { describe, expect, test } from "bun:test";
import { ValidationError } from "../../../domain/errors";
import { validateRateCard } from "../../../domain/pricing/card";

// docs/rates.md#setting-the-card: what a card may hold. A setting that would do nothing — a member a part does not
// have, a rule that can never apply — is refused, named; so is an amount over 1,000,000.
const ctx = { minorUnit: (c: string) => (c === "JPY" ? 0 : 2), defaultCurrency: "USD", airportKnown: (iata: string) => ["JFK", "LGA"].includes(iata) };

/** The fields a card is refused for (none: it is valid). */
function refused(card: unknown): string[] {
  try {
    validateRateCard(card, ctx);
    return [];
  } catch (err) {
    if (!(err instanceof ValidationError)) throw err;
    return err.errors.map((e) => e.field);
  }
}
const messageOf = (card: unknown, field: string) => {
  try {
    validateRateCard(card, ctx);
  } catch (err) {
    return (err as ValidationError).errors.find((e) => e.field === field)?.message;
  }
};
const km = (id: string, over: Record<string, unknown> = {}) => ({ id, base: "60.00", includedKm: 10, perKm: "2.40", ...over });

describe("distance bands", () => {
  test("upToKm is kept on its rule; rules in rising bands, for the same or other types, are valid", () => {
    const card = validateRateCard(
      {
        distance: [
          km("sedan-city", { vehTypes: ["SEDAN"], upToKm: 20 }),
          km("sedan-region", { vehTypes: ["SEDAN"], upToKm: 150 }),
          km("sedan-km", { vehTypes: ["SEDAN"] }),
          km("suv-km", { vehTypes: ["SUV"] }),
          km("any-km"),
        ],
      },
      ctx,
    );
    expect(card.distance.map((d) => [d.id, d.upToKm])).toEqual([
      ["sedan-city", 20],
      ["sedan-region", 150],
      ["sedan-km", undefined],
      ["suv-km", undefined],
      ["any-km", undefined],
    ]);
    expect(card.distance[2]).toEqual({ id: "sedan-km", vehTypes: ["SEDAN"], base: "60.00", includedKm: 10, perKm: "2.40" });
  });

  test("a second rule for the same type after one with no upToKm can never apply: 400 naming it", () => {
    const card = { distance: [km("sedan-km", { vehTypes: ["SEDAN"] }), km("sedan-long", { vehTypes: ["SEDAN"], upToKm: 500 })] };
    expect(refused(card)).toEqual(["distance[1]"]);
    expect(messageOf(card, "distance[1]")).toContain("distance[0] (sedan-km) already prices its vehicle types");
    // A rule for every type first leaves nothing to any later one; a narrower band after a wider one neither.
    expect(refused({ distance: [km("any"), km("sedan", { vehTypes: ["SEDAN"] }), km("all")] })).toEqual(["distance[1]", "distance[2]"]);
    expect(refused({ distance: [km("wide", { upToKm: 100 }), km("narrow", { vehTypes: ["SUV"], upToKm: 40 })] })).toEqual(["distance[1]"]);
    expect(refused({ distance: [km("same", { upToKm: 100 }), km("again", { upToKm: 100 })] })).toEqual(["distance[1]"]);
  });

  test("a rule is kept while some type or some length still reaches it", () => {
    // SUV is priced by nothing before it; a longer band reaches trips the first does not.
    expect(refused({ distance: [km("sedan", { vehTypes: ["SEDAN"] }), km("both", { vehTypes: ["SEDAN", "SUV"] })] })).toEqual([]);
    expect(refused({ distance: [km("short", { upToKm: 30 }), km("rest")] })).toEqual([]);
    // A rule for some types does not cover every type.
    expect(refused({ distance: [km("sedan", { vehTypes: ["SEDAN"] }), km("any")] })).toEqual([]);
  });

  test("upToKm is a number from 0.1 to 5,000", () => {
    for (const upToKm of [0, -5, 5001, "20", null])
      expect({ upToKm, fields: refused({ distance: [km("d", { upToKm })] }) }).toEqual({ upToKm, fields: ["distance[0].upToKm"] });
  });

  test("hourly rules: a type's first applies, so a later one for the same types is refused", () => {
    const hour = (id: string, vehTypes?: string[]) => ({ id, perHour: "85.00", minimumHours: 3, ...(vehTypes ? { vehTypes } : {}) });
    expect(refused({ hourly: [hour("sedan", ["SEDAN"]), hour("sedan-again", ["SEDAN"])] })).toEqual(["hourly[1]"]);
    expect(refused({ hourly: [hour("any"), hour("suv", ["SUV"])] })).toEqual(["hourly[1]"]);
    expect(refused({ hourly: [hour("sedan", ["SEDAN"]), hour("suv", ["SUV", "SPRINTER"]), hour("any")] })).toEqual([]);
  });
});

describe("unknown members", () => {
  test("each member a part of the card does not have is named", () => {
    const card = {
      currency: "USD",
      colour: "blue",
      routes: [{ id: "r", from: { airport: "JFK", lat: 40.6 }, to: { lat: 40.7, lon: -74, radiusKm: 8, name: "Midtown" }, price: "95.00", oneWay: true }],
      distance: [{ id: "d", base: "60.00", perKm: "2.40", upTo: 50 }],
      hourly: [{ id: "h", perHour: "85.00", minimumHours: 3, maximumHours: 12 }],
      surcharges: [
        { id: "night", kind: "night", from: "22:00", to: "06:00", percent: 20, dates: ["12-25"] },
        { id: "jfk", kind: "airportPickup", airports: ["JFK"], amount: "15.00", from: "22:00" },
        { id: "xmas", kind: "date", dates: ["12-25"], percent: 50, airports: ["JFK"] },
      ],
      extras: [{ code: "CHILD_SEAT", price: "12.00", maxPerTrip: 3 }],
    };
    expect(refused(card).sort()).toEqual(
      [
        "colour",
        "routes[0].oneWay",
        "routes[0].from.lat",
        "routes[0].to.name",
        "distance[0].upTo",
        "hourly[0].maximumHours",
        "surcharges[0].dates",
        "surcharges[1].from",
        "surcharges[2].airports",
        "extras[0].maxPerTrip",
      ].sort(),
    );
    expect(messageOf(card, "distance[0].upTo")).toBe("is not a member of a distance rate (id, vehTypes, base, includedKm, perKm, upToKm)");
    expect(messageOf(card, "surcharges[0].dates")).toBe("is not a member of a night surcharge (id, kind, name, amount, percent, from, to)");
  });

  test("the example card and every member a part has are accepted", () => {
    const full = {
      currency: "USD",
      minimumFare: "45.00",
      routes: [{ id: "r", from: { airport: "JFK" }, to: { polygon: [[-74, 40], [-73, 40], [-73, 41], [-74, 40]] }, vehTypes: ["SEDAN"], price: "95.00", bothWays: true }],
      distance: [{ id: "d", vehTypes: ["SEDAN"], base: "60.00", includedKm: 10, perKm: "2.40", upToKm: 50 }],
      hourly: [{ id: "h", vehTypes: ["SEDAN"], perHour: "85.00", minimumHours: 3 }],
      surcharges: [{ id: "n", kind: "night", name: "Night", from: "22:00", to: "06:00", percent: 20 }],
      extras: [{ code: "CHILD_SEAT", name: "Child seat", price: "12.00", max: 3 }],
    };
    expect(refused(full)).toEqual([]);
  });
});

describe("amounts", () => {
  test("each amount is at most 1,000,000 in the card's currency", () => {
    const card = {
      minimumFare: "1000000.01",
      routes: [{ id: "r", from: { airport: "JFK" }, to: { airport: "LGA" }, price: "1000000.00" }],
      distance: [{ id: "d", base: "2000000", perKm: 1000001 }],
      hourly: [{ id: "h", perHour: "999999.99" }],
      surcharges: [{ id: "s", kind: "airportPickup", airports: ["JFK"], amount: "1000000.50" }],
      extras: [{ code: "CHILD_SEAT", price: "12000000" }],
    };
    expect(refused(card)).toEqual(["minimumFare", "distance[0].base", "distance[0].perKm", "surcharges[0].amount", "extras[0].price"]);
    expect(messageOf(card, "minimumFare")).toBe("must be at most 1,000,000 (in the card's currency)");
    expect(refused({ currency: "JPY", minimumFare: "1000000", extras: [{ code: "X", price: 1000001 }] })).toEqual(["extras[0].price"]);
  });
});

describe("surcharge and extra names follow the name rules (docs/rates.md#setting-the-card)", () => {
  const card = (name: unknown) => ({
    surcharges: [{ id: "night", kind: "night", from: "22:00", to: "06:00", percent: 20, name }],
    extras: [{ code: "CHILD_SEAT", price: "12.00", name }],
  });

  test.each([
    ["a line separator (U+2028)", "Night\u2028rate", "U+2028"],
    ["a right-to-left override (U+202E)", "Night \u202Eetar", "U+202E"],
    ["a bell (BEL)", "Night\u0007", "U+0007"],
    ["an escape sequence (ESC)", "\u001B[31mNight", "U+001B"],
    ["a braille blank", "\u2800\u2800", "U+2800"],
    ["a zero-width space", "Ni\u200Bght", "U+200B"],
  ])("%s is refused, naming each field and the character", (_what, name, character) => {
    expect(refused(card(name))).toEqual(["surcharges[0].name", "extras[0].name"]);
    expect(messageOf(card(name), "surcharges[0].name")).toContain(character);
    expect(messageOf(card(name), "extras[0].name")).toContain(character);
  });

  test("empty, blank, too long or not text is refused; 1–200 characters after trimming are kept", () => {
    for (const name of ["", "   ", "x".repeat(201), 42, "..."]) expect(refused(card(name))).toEqual(["surcharges[0].name", "extras[0].name"]);
    const kept = validateRateCard(card("  Nachtzuschlag 🌙 (22–6 Uhr)  "), ctx);
    expect(kept.surcharges[0].name).toBe("Nachtzuschlag 🌙 (22–6 Uhr)");
    expect(kept.extras[0].name).toBe("Nachtzuschlag 🌙 (22–6 Uhr)");
    expect(validateRateCard(card("x".repeat(200)), ctx).extras[0].name).toHaveLength(200);
  });
});
