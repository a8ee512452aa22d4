import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import card from "../../../../adapters/http/examples/rate-card.json";
import { createHarness, type Harness } from "../../../support/harness";
import { insertFleet, party, type Party } from "../../../support/trips";

/** GET|PUT|DELETE /api/company/rates (docs/rates.md#setting-the-card): the whole card replaced, every bad field named, nothing saved. */

let h: Harness;
let op: Party, yen: Party, bare: Party;
const bearer = (p: Party) => ({ authorization: `Bearer ${p.jwt}` });

beforeAll(async () => {
  h = createHarness();
  [op, yen, bare] = await Promise.all([party(h, "RC-OPS", "IO"), party(h, "RC-YEN", "IO"), party(h, "RC-BARE", "IO")]);
  await insertFleet(h, yen.netid, [{ slug: "rc-yen-1", maxPassengers: 4, maxLuggage: 2, currency: "JPY", hourlyRate: "9000" }]);
});
afterAll(() => h.close());

describe("rate card routes", () => {
  test("no card: 404 RATE_CARD_NOT_FOUND; PUT stores it; GET shows it normalised; DELETE removes it", async () => {
    expect((await h.request("GET", "/api/company/rates", { headers: bearer(op) })).body.code).toBe("RATE_CARD_NOT_FOUND");
    const put = await h.request("PUT", "/api/company/rates", { headers: bearer(op), body: { ...card, minimumFare: 45 } });
    expect(put.status).toBe(200);
    expect(put.body.data.minimumFare).toBe("45.00");
    const got = await h.request("GET", "/api/company/rates", { headers: bearer(op) });
    expect(got.status).toBe(200);
    expect(got.body.data.currency).toBe("USD");
    expect(got.body.data.routes).toHaveLength(3);
    expect(got.body.data.routes[0]).toMatchObject({ id: "jfk-midtown", price: "95.00", bothWays: true, vehTypes: ["SEDAN"] });
    expect(got.body.data.extras.map((e: { code: string }) => e.code)).toContain("CHILD_SEAT");
    expect((await h.request("DELETE", "/api/company/rates", { headers: bearer(op) })).status).toBe(200);
    expect((await h.request("GET", "/api/company/rates", { headers: bearer(op) })).status).toBe(404);
    expect((await h.request("DELETE", "/api/company/rates", { headers: bearer(op) })).status).toBe(404);
  });

  test("a bad card is 400 naming each field, and nothing is saved", async () => {
    const good = await h.request("PUT", "/api/company/rates", { headers: bearer(op), body: card });
    expect(good.status).toBe(200);
    const bad = structuredClone(card) as any;
    bad.routes[1].to.radiusKm = -3;
    bad.routes[2].to.polygon = [[-74.0192, 40.7003], [-73.9712, 40.7108], [-73.9769, 40.7282], [-74.0113, 40.7301]];
    bad.distance[1].id = "sedan-km";
    bad.surcharges[1].from = "25:00";
    bad.extras[0].price = "12.005";
    bad.currency = "XYZ";
    const res = await h.request("PUT", "/api/company/rates", { headers: bearer(op), body: bad });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe("VALIDATION_FAILED");
    const fields = res.body.errors.map((e: { field: string }) => e.field);
    for (const f of ["currency", "routes[1].to.radiusKm", "routes[2].to.polygon", "distance[1].id", "surcharges[1].from"]) expect(fields).toContain(f);
    // Still the card saved before.
    const got = await h.request("GET", "/api/company/rates", { headers: bearer(op) });
    expect(got.body.data.routes[1].to.radiusKm).toBe(8);
  });

  test("settings that would do nothing are refused: unknown members, a rule that can never apply; amounts over 1,000,000", async () => {
    expect((await h.request("PUT", "/api/company/rates", { headers: bearer(op), body: card })).status).toBe(200);
    const bad = structuredClone(card) as any;
    bad.routes[0].from.lat = 40.64;
    bad.routes[1].colour = "blue";
    bad.distance.push({ id: "sedan-long", vehTypes: ["SEDAN"], base: "200.00", includedKm: 0, perKm: "1.50", upToKm: 800 });
    bad.hourly[0].maximumHours = 12;
    bad.surcharges[1].airports = ["JFK"];
    bad.extras[0].price = "1000000.01";
    const res = await h.request("PUT", "/api/company/rates", { headers: bearer(op), body: bad });
    expect(res.status).toBe(400);
    expect(res.body.errors.map((e: { field: string }) => e.field).sort()).toEqual(
      ["routes[0].from.lat", "routes[1].colour", "distance[2]", "hourly[0].maximumHours", "surcharges[1].airports", "extras[0].price"].sort(),
    );
    expect(res.body.errors.find((e: { field: string }) => e.field === "distance[2]").message).toContain("distance[0] (sedan-km)");
    // Nothing saved: the card as before, without the long band.
    const got = await h.request("GET", "/api/company/rates", { headers: bearer(op) });
    expect(got.body.data.distance.map((d: { id: string }) => d.id)).toEqual(["sedan-km", "suv-km"]);
    // Bands in rising order are a valid card, shown with their upToKm.
    const banded = structuredClone(card) as any;
    banded.distance.unshift({ id: "sedan-city", vehTypes: ["SEDAN"], base: "30.00", includedKm: 0, perKm: "2.50", upToKm: 20 });
    const ok = await h.request("PUT", "/api/company/rates", { headers: bearer(op), body: banded });
    expect(ok.status).toBe(200);
    expect(ok.body.data.distance[0]).toEqual({ id: "sedan-city", vehTypes: ["SEDAN"], base: "30.00", includedKm: 0, perKm: "2.50", upToKm: 20 });
    expect((await h.request("GET", "/api/company/rates", { headers: bearer(op) })).body.data.distance[0].upToKm).toBe(20);
  });

  test("amounts in the currency's minor unit; the default currency is the fleet's", async () => {
    const res = await h.request("PUT", "/api/company/rates", {
      headers: bearer(yen),
      body: { minimumFare: "5000.5", extras: [{ code: "CHILD_SEAT", price: 1500 }] },
    });
    expect(res.status).toBe(400);
    expect(res.body.errors.map((e: { field: string }) => e.field)).toEqual(["minimumFare"]);
    const ok = await h.request("PUT", "/api/company/rates", {
      headers: bearer(yen),
      body: { minimumFare: "5000", extras: [{ code: "CHILD_SEAT", price: 1500 }] },
    });
    expect(ok.status).toBe(200);
    expect(ok.body.data).toMatchObject({ currency: "JPY", minimumFare: "5000", extras: [{ code: "CHILD_SEAT", name: "CHILD_SEAT", price: "1500" }] });
    // No fleet and no currency: the currency is required.
    const none = await h.request("PUT", "/api/company/rates", { headers: bearer(bare), body: { minimumFare: "10" } });
    expect(none.body.errors.map((e: { field: string }) => e.field)).toEqual(["currency"]);
  });

  test("currency: capital ISO 4217 codes a fare is paid in only; `usd` is refused, not upper-cased; amounts in its minor unit", async () => {
    const before = await h.request("PUT", "/api/company/rates", { headers: bearer(op), body: card });
    expect(before.status).toBe(200);
    for (const currency of ["usd", "XAU", "XTS", "CLF", "USN", "BOV", "ZZZ", 840]) {
      const res = await h.request("PUT", "/api/company/rates", { headers: bearer(op), body: { ...card, currency } });
      expect(res.status).toBe(400);
      expect(res.body.errors.map((e: { field: string }) => e.field)).toEqual(["currency"]);
    }
    // JPY has no decimals, KWD three: each amount field is named.
    const yenCard = {
      currency: "JPY",
      minimumFare: "5000",
      routes: [{ id: "r1", from: { airport: "NRT" }, to: { lat: 35.68, lon: 139.76, radiusKm: 10 }, price: "21000.50" }],
      extras: [{ code: "CHILD_SEAT", price: "1500.5" }],
    };
    const yenRes = await h.request("PUT", "/api/company/rates", { headers: bearer(op), body: yenCard });
    expect(yenRes.status).toBe(400);
    expect(yenRes.body.errors.map((e: { field: string }) => e.field).sort()).toEqual(["extras[0].price", "routes[0].price"]);
    expect(yenRes.body.errors[0].message).toContain("JPY has none");
    const kwd = await h.request("PUT", "/api/company/rates", { headers: bearer(op), body: { currency: "KWD", minimumFare: "12.5005" } });
    expect(kwd.body.errors.map((e: { field: string }) => e.field)).toEqual(["minimumFare"]);
    // Nothing saved: still the USD card.
    const got = await h.request("GET", "/api/company/rates", { headers: bearer(op) });
    expect(got.body.data.currency).toBe("USD");
    expect(got.body.data.routes).toHaveLength(3);
    const ok = await h.request("PUT", "/api/company/rates", { headers: bearer(op), body: { currency: "KWD", minimumFare: "12.500" } });
    expect(ok.body.data).toMatchObject({ currency: "KWD", minimumFare: "12.500" });
  });

  test("bounds: at most 200 of each kind but routes (2,000), polygons ≤ 500 points, unknown airports named", async () => {
    const extras = Array.from({ length: 201 }, (_, i) => ({ code: `X${i}`, price: "1" }));
    const ring = Array.from({ length: 501 }, (_, i) => [-74 + i * 1e-4, 40.7 + (i % 2) * 1e-3]);
    const res = await h.request("PUT", "/api/company/rates", {
      headers: bearer(op),
      body: { currency: "USD", extras, routes: [{ id: "r", from: { airport: "QQQ" }, to: { polygon: ring }, price: "1" }] },
    });
    expect(res.status).toBe(400);
    const fields = res.body.errors.map((e: { field: string }) => e.field);
    expect(fields).toEqual(expect.arrayContaining(["extras", "routes[0].from.airport", "routes[0].to.polygon"]));
  });

  test("the platform token is not the credential (bearer JWT only)", async () => {
    const res = await h.request("GET", "/api/company/rates", { headers: { token: op.token } });
    expect(res.status).toBe(401);
  });
});
