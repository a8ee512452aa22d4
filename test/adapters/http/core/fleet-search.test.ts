import { afterEach, describe, expect, test } from "bun:test";
import { createHarness, type Harness } from "../../../support/harness";
import { addVehicle, company, vehicle } from "../../../support/fleet";

let h: Harness;
afterEach(() => h?.close());

const JFK = { lat: 40.639447, lon: -73.779317 };
const LHR = { lat: 51.4706, lon: -0.461941 };

/** An independent haversine, R = 6371 km. */
function haversineKm(lat1: number, lon1: number, lat2: number, lon2: number): number {
  const r = Math.PI / 180;
  const a = Math.sin(((lat2 - lat1) * r) / 2) ** 2 + Math.cos(lat1 * r) * Math.cos(lat2 * r) * Math.sin(((lon2 - lon1) * r) / 2) ** 2;
  return 2 * 6371 * Math.atan2(Math.sqrt(a), Math.sqrt(1 - a));
}

async function search(auth: Record<string, string>, query: string) {
  return h.request("GET", `/api/search/fleet?${query}`, { headers: auth });
}

describe("fleet search", () => {
  test("finds active vehicles near an airport, nearest first, with every field of the fleet item", async () => {
    h = createHarness();
    const op = await company(h);
    const far = await addVehicle(h, op.auth, { name: "Far Sedan", lat: 40.75, lon: -73.98 });
    const near = await addVehicle(h, op.auth, { name: "Near SUV", type: "SUV", lat: 40.645, lon: -73.78, maxLuggage: null, description: "Leather" });
    await addVehicle(h, op.auth, { name: "Parked", active: false });
    await addVehicle(h, op.auth, { name: "Boston", lat: 42.36, lon: -71.06 });
    await h.indexed();
    const res = await search(op.auth, "airports=jfk");
    expect(res.status).toBe(200);
    expect(res.body.data.total).toBe(2);
    expect(res.body.data.items.map((i: { slug: string }) => i.slug)).toEqual([near, far]);
    const item = res.body.data.items[0];
    expect(Object.keys(item).sort()).toEqual(
      ["currency", "description", "distanceKm", "hourly_rate", "imageUrl", "lat", "lon", "maxLuggage", "maxPassengers", "minimum_rate", "name", "netid", "score", "slug", "type"].sort(),
    );
    expect(item).toMatchObject({ netid: op.netid, type: "SUV", maxLuggage: null, minimum_rate: 80, hourly_rate: 70, imageUrl: null });
    const jfk = h.services.airports.lookup("JFK")!;
    const exact = haversineKm(jfk.lat, jfk.lon, 40.645, -73.78);
    expect(item.distanceKm).toBe(Math.round(exact * 100) / 100);
    // The score comes from the unrounded distance (docs/integration.md#fleet-search).
    expect(item.score).toBe(Math.round((1 - exact / 50) * 10000) / 10000);
    expect(res.body.data).toMatchObject({ limit: 20, offset: 0, warnings: [] });
  });

  test("airports and lat/lon together search the union of their circles", async () => {
    h = createHarness();
    const op = await company(h);
    const ny = await addVehicle(h, op.auth, { name: "NY", lat: JFK.lat + 0.01, lon: JFK.lon });
    const london = await addVehicle(h, op.auth, { name: "London", lat: LHR.lat + 0.01, lon: LHR.lon, airports: ["LHR"] });
    await h.indexed();
    const both = await search(op.auth, `airports=JFK&lat=${LHR.lat}&lon=${LHR.lon}&radius_km=10`);
    expect(both.body.data.items.map((i: { slug: string }) => i.slug).sort()).toEqual([ny, london].sort());
    expect((await search(op.auth, "airports=JFK&radius_km=10")).body.data.total).toBe(1);
    expect((await search(op.auth, `lat=${LHR.lat}&lon=${LHR.lon}&radius_km=10`)).body.data.items[0].slug).toBe(london);
  });

  test("types and q filter, case- and accent-insensitively", async () => {
    h = createHarness();
    const op = await company(h);
    await addVehicle(h, op.auth, { type: "SUV", name: "Cadillac Escalade", description: "Cuir noir, Wi-Fi" });
    await addVehicle(h, op.auth, { type: "SEDAN", name: "Mercédès E", description: "cuir" });
    await addVehicle(h, op.auth, { type: "VAN_MINI", name: "V-Class" });
    await h.indexed();
    expect((await search(op.auth, "airports=JFK&types=suv,van_mini")).body.data.total).toBe(2);
    expect((await search(op.auth, "airports=JFK&q=MERCEDES")).body.data.total).toBe(1);
    expect((await search(op.auth, "airports=JFK&q=cuir%20wi-fi")).body.data.total).toBe(1);
    expect((await search(op.auth, "airports=JFK&q=van_mini")).body.data.total).toBe(1);
    expect((await search(op.auth, "airports=JFK&q=%20%20")).body.data.total).toBe(3);
  });

  test("order ties on distance are broken by slug in byte order", async () => {
    h = createHarness();
    const op = await company(h);
    const slugs = [];
    for (const name of ["b", "B 2", "a", "a-1"]) slugs.push(await addVehicle(h, op.auth, { name, lat: 40.7, lon: -73.8 }));
    await h.indexed();
    const res = await search(op.auth, "airports=JFK");
    expect(res.body.data.items.map((i: { slug: string }) => i.slug)).toEqual([...slugs].sort());
  });

  test("FREE always gets 20 items, PROFESSIONAL gets the limit asked; total is the same", async () => {
    h = createHarness();
    const op = await company(h);
    await h.request("POST", "/api/fleet/import", { body: Array.from({ length: 30 }, (_, i) => vehicle({ name: `Car ${i}`, lat: 40.64 + i * 0.001 })), headers: op.auth });
    await h.indexed();
    const free = await search(op.auth, "airports=JFK&limit=5&offset=2");
    expect(free.body.data).toMatchObject({ total: 30, limit: 20, offset: 2 });
    expect(free.body.data.items).toHaveLength(20);
    await h.services.companies.setPlan(op.netid, "PROFESSIONAL");
    const pro = await search(op.auth, "airports=JFK&limit=5&offset=2");
    expect(pro.body.data).toMatchObject({ total: 30, limit: 5, offset: 2 });
    expect(pro.body.data.items.map((i: { slug: string }) => i.slug)).toEqual(free.body.data.items.slice(0, 5).map((i: { slug: string }) => i.slug));
    const big = await search(op.auth, "airports=JFK&limit=100");
    expect(big.body.data.items).toHaveLength(30);
    expect((await search(op.auth, "airports=JFK&offset=29&limit=100")).body.data.items).toHaveLength(1);
  });

  test("an unknown airport code is a warning, not an error", async () => {
    h = createHarness();
    const op = await company(h);
    await addVehicle(h, op.auth);
    await h.indexed();
    const res = await search(op.auth, "airports=JFK,xqz,XQZ");
    expect(res.status).toBe(200);
    expect(res.body.data.total).toBe(1);
    expect(res.body.data.warnings).toEqual([{ code: "UNRESOLVABLE_AIRPORT", netid: "", airport: "XQZ", detail: expect.stringContaining("XQZ") }]);
    const only = await search(op.auth, "airports=XQZ");
    expect(only.status).toBe(200);
    expect(only.body.data).toMatchObject({ total: 0, items: [] });
  });

  test("companies with matching entries at a requested airport but no position get one MISSING_GPS each", async () => {
    h = createHarness();
    const a = await company(h);
    const b = await company(h);
    await addVehicle(h, a.auth, { lat: null, lon: null });
    await addVehicle(h, a.auth, { lat: null, lon: null, airports: ["JFK", "LGA"] });
    await addVehicle(h, a.auth, { lat: null, lon: null, type: "BUS" });
    await addVehicle(h, a.auth, { lat: null, lon: null, active: false });
    await addVehicle(h, b.auth, { lat: null, lon: null, airports: ["LGA"] });
    await addVehicle(h, b.auth, { lat: null, lon: null, airports: ["LHR"] });
    await addVehicle(h, b.auth);
    await h.indexed();
    const res = await search(a.auth, "airports=JFK,LGA&types=SEDAN");
    expect(res.body.data.total).toBe(1);
    const warnings = res.body.data.warnings;
    expect(warnings.map((w: { code: string; netid: string }) => [w.code, w.netid])).toEqual(
      [["MISSING_GPS", a.netid], ["MISSING_GPS", b.netid]].sort((x, y) => (x[1] < y[1] ? -1 : 1)),
    );
    expect(warnings.find((w: { netid: string }) => w.netid === a.netid).detail).toMatch(/^2 entries/);
    expect(warnings.find((w: { netid: string }) => w.netid === b.netid).detail).toMatch(/^1 entry/);
    expect((await search(a.auth, "airports=LHR&types=SEDAN&q=nothing-like-this")).body.data.warnings).toEqual([]);
  });

  test.each([
    ["", "airports"],
    ["airports=", "airports"],
    ["lat=40.6", "lon"],
    ["lon=-73.7", "lat"],
    ["lat=91&lon=0", "lat"],
    ["lat=0&lon=-181", "lon"],
    ["lat=abc&lon=0", "lat"],
    ["airports=JFK&radius_km=0", "radius_km"],
    ["airports=JFK&radius_km=-10", "radius_km"],
    ["airports=JFK&radius_km=1001", "radius_km"],
    ["airports=JFK&radius_km=ten", "radius_km"],
    ["airports=JFK&limit=0", "limit"],
    ["airports=JFK&limit=101", "limit"],
    ["airports=JFK&limit=x", "limit"],
    ["airports=JFK&offset=-1", "offset"],
    ["airports=JFK&offset=zero", "offset"],
    [`airports=${Array.from({ length: 26 }, (_, i) => `Q${String.fromCharCode(65 + i)}X`).join(",")}`, "airports"],
  ])("400 for %p naming %p", async (query, field) => {
    h = createHarness();
    const op = await company(h, { plan: "PROFESSIONAL" });
    const res = await search(op.auth, query);
    expect(res.status).toBe(400);
    expect(res.body.success).toBe(false);
    expect(res.body.errors.map((e: { field: string }) => e.field)).toContain(field);
    expect(res.body.message).toContain(field);
  });

  test("out-of-range limit is 400 on FREE too", async () => {
    h = createHarness();
    const op = await company(h);
    expect((await search(op.auth, "airports=JFK&limit=101")).status).toBe(400);
  });

  test("401 without or with a bad token; 404 user profile not found for a removed user's token", async () => {
    h = createHarness();
    const res = await search({}, "airports=JFK");
    expect(res.status).toBe(401);
    expect(res.headers.get("www-authenticate")).toBe("Bearer");
    expect((await search({ authorization: "Bearer not.a.token" }, "airports=JFK")).status).toBe(401);
    const op = await company(h);
    await h.services.users.remove(op.netid);
    const gone = await search(op.auth, "airports=JFK");
    expect(gone.status).toBe(404);
    expect(gone.body).toMatchObject({ success: false, code: "USER_PROFILE_NOT_FOUND" });
    expect(gone.body.message.toLowerCase()).toContain("user profile not found");
  });

  test("the OpenAPI document describes the parameters and warning codes", async () => {
    h = createHarness();
    const doc = (await h.request("GET", "/docs/json")).body;
    const op = doc.paths["/api/search/fleet"].get;
    const params = Object.fromEntries(op.parameters.map((p: { name: string; schema: { description?: string }; description?: string }) => [p.name, p.description ?? p.schema.description]));
    expect(Object.keys(params).sort()).toEqual(["airports", "city", "country", "lat", "limit", "lon", "offset", "q", "radius_km", "state", "types"]);
    expect(params.radius_km).toContain("default 50");
    expect(params.limit).toContain("1–100");
    expect(JSON.stringify(op.responses["200"])).toContain("MISSING_GPS");
    expect(JSON.stringify(op.responses["200"])).toContain("UNRESOLVABLE_AIRPORT");
    expect(JSON.stringify(op.responses["200"])).toContain("PICKUP_CITY_AMBIGUOUS");
    expect(JSON.stringify(op.responses["200"])).toContain("currency");
  });
});
