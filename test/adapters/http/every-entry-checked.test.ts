import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createHarness, type Harness } from "../../support/harness";
import { addVehicle, company, vehicle } from "../../support/fleet";
import { party, type Party, providerUpdate, regularTrip, sendTrip } from "../../support/trips";

// Issue 37, the residuals: N13 a fleet entry's rates have at most their currency's minor unit's decimals (JPY 85.5 is
// no amount of yen) on create, change and import; N12 a fleet entry's name — shown to every company that searches
// or books — refuses blank-looking and line-breaking characters as a company's name does; docs/integration.md#errors a wrong-typed field no
// longer hides the other failing fields: one 400 names them all. Nothing is saved by a refused request.
let h: Harness;
let requester: Party, provider: Party;

beforeAll(async () => {
  h = createHarness();
  [requester, provider] = await Promise.all([party(h, "EVERY-REQ", "CO"), party(h, "EVERY-PROV", "IO")]);
});

afterAll(() => h.close());

const fields = (body: { errors?: Array<{ field: string }> }) => (body.errors ?? []).map((e) => e.field).sort();

describe("N13: a fleet rate has at most its currency's decimals", () => {
  test("POST /api/fleet in JPY with hourly_rate 85.5 is 400 naming hourly_rate; nothing is saved; 85 is taken", async () => {
    const op = await company(h);
    const before = await h.count("fleet_entries");
    const res = await h.request("POST", "/api/fleet", { body: vehicle({ currency: "JPY", hourly_rate: 85.5, minimum_rate: 8000 }), headers: op.auth });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe("VALIDATION_FAILED");
    expect(res.body.errors).toEqual([{ field: "hourly_rate", message: "has 1 decimal; JPY has none" }]);
    expect(await h.count("fleet_entries")).toBe(before);
    const ok = await h.request("POST", "/api/fleet", { body: vehicle({ currency: "JPY", hourly_rate: 85, minimum_rate: 8000 }), headers: op.auth });
    expect(ok.status).toBe(200);
    expect(ok.body.data.currency).toBe("JPY");
  });

  test("PATCH to JPY of an entry whose rate has cents is 400 naming the rate; the entry keeps USD", async () => {
    const op = await company(h);
    const slug = await addVehicle(h, op.auth, { hourly_rate: 70.5 });
    const res = await h.request("PATCH", `/api/fleet/${slug}`, { body: { currency: "JPY" }, headers: op.auth });
    expect(res.status).toBe(400);
    expect(fields(res.body)).toEqual(["hourly_rate"]);
    const kept = await h.request("GET", `/api/fleet/${slug}`, { headers: op.auth });
    expect(kept.body.data.currency).toBe("USD");
    expect(kept.body.data.hourly_rate).toBe(70.5);
  });

  test("an import with a ZZZ, a usd and a JPY 1.5 row is 400 naming each row's field; nothing is saved", async () => {
    const op = await company(h);
    const before = await h.count("fleet_entries");
    const rows = [vehicle({ currency: "ZZZ" }), vehicle({ currency: "usd" }), vehicle({ currency: "JPY", minimum_rate: 1.5 }), vehicle({ currency: "XTS" })];
    const res = await h.request("POST", "/api/fleet/import", { body: rows, headers: op.auth });
    expect(res.status).toBe(400);
    expect(fields(res.body)).toEqual(["[0].currency", "[1].currency", "[2].minimum_rate", "[3].currency"]);
    expect(await h.count("fleet_entries")).toBe(before);
  });
});

describe("N12: a fleet entry's name follows the rules of a company's name", () => {
  const BAD = ["\u2800\u2800\u2800", "Sedan\u2028Black", "Sedan\u2029Black", "\u3164", "Van\u202Egnp.exe", "Van\u200B"];

  test.each(BAD.map((n) => [JSON.stringify(n), n]))("POST /api/fleet named %s is 400 naming name; nothing is saved", async (_shown, name) => {
    const op = await company(h);
    const before = await h.count("fleet_entries");
    const res = await h.request("POST", "/api/fleet", { body: vehicle({ name }), headers: op.auth });
    expect(res.status).toBe(400);
    expect(fields(res.body)).toEqual(["name"]);
    expect(await h.count("fleet_entries")).toBe(before);
  });

  test("PATCH and import refuse such a name too; a name in any script is taken", async () => {
    const op = await company(h);
    const slug = await addVehicle(h, op.auth);
    const patch = await h.request("PATCH", `/api/fleet/${slug}`, { body: { name: "Black\u2028Sedan" }, headers: op.auth });
    expect(patch.status).toBe(400);
    expect(fields(patch.body)).toEqual(["name"]);
    const imported = await h.request("POST", "/api/fleet/import", { body: [vehicle(), vehicle({ name: "\u2800" })], headers: op.auth });
    expect(imported.status).toBe(400);
    expect(fields(imported.body)).toEqual(["[1].name"]);
    for (const name of ["Mercedes-Benz V-Klasse – München", "東京 ハイヤー", "سيارة ليموزين"]) {
      const res = await h.request("POST", "/api/fleet", { body: vehicle({ name }), headers: op.auth });
      expect(res.status).toBe(200);
    }
  });
});

describe("docs/integration.md#errors: a wrong-typed field and the other failing fields are named in one 400", () => {
  test("POST /api/fleet with hourly_rate \"ninety\", maxPassengers \"three\", currency ZZZ and an empty name names all four", async () => {
    const op = await company(h);
    const before = await h.count("fleet_entries");
    const body = vehicle({ hourly_rate: "ninety", maxPassengers: "three", currency: "ZZZ", name: "", lat: 200 });
    const res = await h.request("POST", "/api/fleet", { body, headers: op.auth });
    expect(res.status).toBe(400);
    expect(fields(res.body)).toEqual(["currency", "hourly_rate", "lat", "maxPassengers", "name"]);
    expect(res.body.errors.find((e: { field: string }) => e.field === "hourly_rate").message).toBe("must be number");
    expect(await h.count("fleet_entries")).toBe(before);
  });

  test("PATCH /api/fleet/{slug} with two wrong types and a bad currency names the three", async () => {
    const op = await company(h);
    const slug = await addVehicle(h, op.auth);
    const res = await h.request("PATCH", `/api/fleet/${slug}`, { body: { hourly_rate: "ninety", active: "yes", currency: "usd" }, headers: op.auth });
    expect(res.status).toBe(400);
    expect(fields(res.body)).toEqual(["active", "currency", "hourly_rate"]);
  });

  test("POST /api/company/register with a wrong-typed name and a bad e-mail, phone and coType names every field", async () => {
    const before = await h.count("companies");
    const res = await h.request("POST", "/api/company/register", {
      body: { name: 5, mainEmail: "not-an-address", password: 12345678, confirmPassword: "x", mainPhone: "12", coType: "ZZ" },
    });
    expect(res.status).toBe(400);
    expect(fields(res.body)).toEqual(["coType", "confirmPassword", "mainEmail", "mainPhone", "name", "password"]);
    expect(await h.count("companies")).toBe(before);
  });

  test("sendTrip with a wrong-typed member and a fee line in ZZZ names both; nothing is saved", async () => {
    const before = await h.count("bookings");
    const trip = regularTrip(requester.netid, provider.netid, { reservationDate: 5, fees: [{ code: "BASE", fee: "100.00", currency: "ZZZ" }] });
    const res = await sendTrip(h, requester, trip);
    expect(res.status).toBe(400);
    expect(fields(res.body)).toEqual(["fees[0].currency", "reservationDate"]);
    expect(await h.count("bookings")).toBe(before);
  });

  test("PUT /api/company/integration with a wrong-typed serviceRadiusKm and an unknown webhookFormat and acceptTripsFrom names the three", async () => {
    const res = await h.request("PUT", "/api/company/integration", {
      body: { serviceRadiusKm: "ten", webhookFormat: "xml", acceptTripsFrom: "everyone" },
      headers: { authorization: `Bearer ${provider.jwt}` },
    });
    expect(res.status).toBe(400);
    expect(fields(res.body)).toEqual(["acceptTripsFrom", "serviceRadiusKm", "webhookFormat"]);
    const kept = await h.request("GET", "/api/company/integration", { headers: { authorization: `Bearer ${provider.jwt}` } });
    expect(kept.body.data.acceptTripsFrom ?? "anyone").toBe("anyone");
  });

  test("a provider update with a wrong-typed member and a fee line in usd names both; the booking keeps its status", async () => {
    const made = await sendTrip(h, requester, regularTrip(requester.netid, provider.netid));
    expect(made.status).toBe(200);
    const res = await providerUpdate(h, provider, made.body.transactionId, { status: "CONFIRMED", providerNote: 5, fees: [{ code: "BASE", fee: "10.00", currency: "usd" }] });
    expect(res.status).toBe(400);
    expect(fields(res.body)).toEqual(["fees[0].currency", "providerNote"]);
  });
});
