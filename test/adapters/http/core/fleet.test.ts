import { afterEach, describe, expect, test } from "bun:test";
import { createHarness, type Harness } from "../../../support/harness";
import { addVehicle, company, vehicle } from "../../../support/fleet";

let h: Harness;
afterEach(() => h?.close());

describe("fleet management", () => {
  test("an operator adds a vehicle and reads it back with its generated slug", async () => {
    h = createHarness();
    const op = await company(h);
    const res = await h.request("POST", "/api/fleet", { body: vehicle({ type: "suv", name: "Cadillac Escalade", hourly_rate: 85.5 }), headers: op.auth });
    expect(res.status).toBe(200);
    const slug = res.body.data.slug;
    expect(slug).toBe(`${op.netid.toLowerCase()}-cadillac-escalade`);
    const read = await h.request("GET", `/api/fleet/${slug}`, { headers: op.auth });
    expect(read.status).toBe(200);
    expect(read.body.data).toMatchObject({ slug, netid: op.netid, type: "SUV", hourly_rate: 85.5, minimum_rate: 80, currency: "USD", active: true, airports: ["JFK"], maxLuggage: 3 });
  });

  test("a second vehicle with the same name gets a numeric suffix", async () => {
    h = createHarness();
    const op = await company(h);
    const first = await addVehicle(h, op.auth);
    const second = await addVehicle(h, op.auth);
    expect(second).toBe(`${first}-2`);
  });

  test("every invalid field is a 400 naming it, and nothing is saved", async () => {
    h = createHarness();
    const op = await company(h);
    const res = await h.request("POST", "/api/fleet", {
      body: vehicle({ name: "", maxPassengers: 0, lat: 91, imageUrl: "ftp://x.example/y", airports: ["JFK", "XQZ"], minimum_rate: 1.001, currency: "EURO" }),
      headers: op.auth,
    });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe("VALIDATION_FAILED");
    expect(res.body.errors.map((e: { field: string }) => e.field).sort()).toEqual(["airports", "currency", "imageUrl", "lat", "maxPassengers", "minimum_rate", "name"]);
    expect(res.body.errors.find((e: { field: string }) => e.field === "airports").message).toContain("XQZ");
    const list = await h.request("GET", "/api/fleet", { headers: op.auth });
    expect(list.body.data.total).toBe(0);
  });

  test("a wrongly typed field is a 400 naming it", async () => {
    h = createHarness();
    const op = await company(h);
    const res = await h.request("POST", "/api/fleet", { body: vehicle({ maxPassengers: "six" }), headers: op.auth });
    expect(res.status).toBe(400);
    expect(res.body.errors[0].field).toBe("maxPassengers");
  });

  test("PATCH changes only the sent fields and keeps the slug; null clears the position", async () => {
    h = createHarness();
    const op = await company(h);
    const slug = await addVehicle(h, op.auth);
    const res = await h.request("PATCH", `/api/fleet/${slug}`, { body: { name: "Renamed", lat: null, lon: null, active: false }, headers: op.auth });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ slug, name: "Renamed", lat: null, lon: null, active: false, maxPassengers: 3 });
    const half = await h.request("PATCH", `/api/fleet/${slug}`, { body: { lat: 10 }, headers: op.auth });
    expect(half.status).toBe(400);
    expect(half.body.errors[0].field).toBe("lon");
  });

  test("DELETE removes the vehicle; then it is 404", async () => {
    h = createHarness();
    const op = await company(h);
    const slug = await addVehicle(h, op.auth);
    expect((await h.request("DELETE", `/api/fleet/${slug}`, { headers: op.auth })).status).toBe(200);
    expect((await h.request("GET", `/api/fleet/${slug}`, { headers: op.auth })).status).toBe(404);
    expect((await h.request("DELETE", `/api/fleet/${slug}`, { headers: op.auth })).status).toBe(404);
  });

  test("an operator cannot read, change or delete another operator's vehicle (404, like an unknown slug)", async () => {
    h = createHarness();
    const owner = await company(h);
    const other = await company(h);
    const slug = await addVehicle(h, owner.auth);
    const unknown = await h.request("GET", "/api/fleet/no-such-slug", { headers: other.auth });
    for (const [method, body] of [["GET", undefined], ["PATCH", { name: "Mine now" }], ["DELETE", undefined]] as const) {
      const res = await h.request(method, `/api/fleet/${slug}`, { body, headers: other.auth });
      expect(res.status).toBe(404);
      expect(res.text).toBe(unknown.text);
    }
    const still = await h.request("GET", `/api/fleet/${slug}`, { headers: owner.auth });
    expect(still.body.data.name).toBe("Lincoln Continental");
    expect((await h.request("GET", "/api/fleet", { headers: other.auth })).body.data.total).toBe(0);
  });

  test("the list is paged; limit and offset out of bounds are 400 naming the parameter", async () => {
    h = createHarness();
    const op = await company(h);
    for (let i = 0; i < 3; i++) await addVehicle(h, op.auth, { name: `Car ${i}` });
    const page = await h.request("GET", "/api/fleet?limit=2&offset=1", { headers: op.auth });
    expect(page.body.data).toMatchObject({ total: 3, limit: 2, offset: 1 });
    expect(page.body.data.items.map((e: { name: string }) => e.name)).toEqual(["Car 1", "Car 2"]);
    for (const [query, field] of [["limit=0", "limit"], ["limit=101", "limit"], ["offset=-1", "offset"], ["limit=abc", "limit"]]) {
      const res = await h.request("GET", `/api/fleet?${query}`, { headers: op.auth });
      expect(res.status).toBe(400);
      expect(res.body.errors[0].field).toBe(field);
    }
  });

  test("management needs a token, and a removed user's token is 401", async () => {
    h = createHarness();
    expect((await h.request("GET", "/api/fleet")).status).toBe(401);
    const op = await company(h);
    await h.services.users.remove(op.netid);
    expect((await h.request("GET", "/api/fleet", { headers: op.auth })).status).toBe(401);
  });
});

describe("fleet import over HTTP", () => {
  test("imports every entry in order", async () => {
    h = createHarness();
    const op = await company(h);
    const rows = Array.from({ length: 50 }, (_, i) => vehicle({ name: `Sedan ${i}` }));
    const res = await h.request("POST", "/api/fleet/import", { body: rows, headers: op.auth });
    expect(res.status).toBe(200);
    expect(res.body.data.imported).toBe(50);
    expect(res.body.data.slugs[7]).toBe(`${op.netid.toLowerCase()}-sedan-7`);
  });

  test("one invalid row refuses the whole import and every failing row is named", async () => {
    h = createHarness();
    const op = await company(h);
    const rows = Array.from({ length: 20 }, (_, i) => vehicle({ name: `Sedan ${i}` }));
    rows[3] = vehicle({ maxPassengers: 0 });
    rows[12] = vehicle({ lat: 95, hourly_rate: -1 });
    const res = await h.request("POST", "/api/fleet/import", { body: rows, headers: op.auth });
    expect(res.status).toBe(400);
    expect(res.body.errors.map((e: { field: string }) => e.field)).toEqual(["[3].maxPassengers", "[12].lat", "[12].hourly_rate"]);
    expect((await h.request("GET", "/api/fleet", { headers: op.auth })).body.data.total).toBe(0);
  });

  test("more than 10,000 entries is 400", async () => {
    h = createHarness();
    const op = await company(h);
    const res = await h.request("POST", "/api/fleet/import", { body: Array.from({ length: 10_001 }, () => ({})), headers: op.auth });
    expect(res.status).toBe(400);
  });
});
