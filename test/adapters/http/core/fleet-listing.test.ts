import { afterEach, describe, expect, test } from "bun:test";
import { createHarness, ManualClock, type Harness } from "../../../support/harness";
import { company, vehicle } from "../../../support/fleet";

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const TYPES = ["SEDAN", "SUV", "VAN_MINI", "LIMO"];
const NAMES = ["Cadillac Escalade", "lincoln Navigator", "Mercedes S-Class", "BMW 7 Series", "Sprinter 100% Luxury", "Tesla Model_X"];

/** An operator with 60 varied entries (names, types, seats, some inactive), and a stranger with 5 of its own. */
async function fleetOf60(clock?: ManualClock) {
  const h = createHarness({ clock });
  cleanups.push(() => h.close());
  const op = await company(h);
  const rows = Array.from({ length: 60 }, (_, i) =>
    vehicle({ name: `${NAMES[i % NAMES.length]} ${String.fromCharCode(65 + (i % 26))}${i}`, type: TYPES[(i * 7) % TYPES.length], maxPassengers: 1 + ((i * 13) % 17), active: i % 5 !== 0 }),
  );
  expect((await h.request("POST", "/api/fleet/import", { headers: op.auth, body: rows })).status).toBe(200);
  const stranger = await company(h);
  expect((await h.request("POST", "/api/fleet/import", { headers: stranger.auth, body: Array.from({ length: 5 }, () => vehicle({ name: "Cadillac Escalade stranger" })) })).status).toBe(200);
  return { h, op, stranger };
}

/** Every entry the listing gives, page after page (bounded). */
async function allPages(h: Harness, auth: Record<string, string>, query: string, limit = 25) {
  const items: any[] = [];
  let total = 0;
  for (let offset = 0, pages = 0; pages < 100; offset += limit, pages++) {
    const res = await h.request("GET", `/api/fleet?${query}&limit=${limit}&offset=${offset}`, { headers: auth });
    expect(res.status).toBe(200);
    total = res.body.data.total;
    items.push(...res.body.data.items);
    if (offset + limit >= total) break;
  }
  return { items, total };
}

const byBytes = (a: string, b: string) => (Buffer.compare(Buffer.from(a), Buffer.from(b)) as number);

describe("GET /api/fleet: paging, sorting and filtering on the server", () => {
  test("without parameters: every entry of the caller, by slug, as before", async () => {
    const { h, op } = await fleetOf60();
    const { items, total } = await allPages(h, op.auth, "");
    expect(total).toBe(60);
    expect(items.map((e) => e.slug)).toEqual(items.map((e) => e.slug).sort(byBytes));
    expect(new Set(items.map((e) => e.netid))).toEqual(new Set([op.netid]));
    const first = await h.request("GET", "/api/fleet", { headers: op.auth });
    expect(first.body.data).toMatchObject({ total: 60, limit: 20, offset: 0 });
    expect(first.body.data.items).toEqual(items.slice(0, 20));
  });

  test("sort by name, seats, type or state, either way; ties broken by slug in the same direction; pages join up", async () => {
    const { h, op } = await fleetOf60();
    const { items: everything } = await allPages(h, op.auth, "");
    const cases: Array<[string, (e: any) => string | number | boolean]> = [
      ["name", (e) => e.name],
      ["maxPassengers", (e) => e.maxPassengers],
      ["type", (e) => e.type],
      ["active", (e) => e.active],
    ];
    for (const [sort, key] of cases) {
      for (const order of ["asc", "desc"]) {
        const sign = order === "asc" ? 1 : -1;
        const expected = [...everything].sort((a, b) => {
          const [x, y] = [key(a), key(b)];
          const c = typeof x === "string" ? byBytes(x, y as string) : Number(x) - Number(y);
          return sign * (c || byBytes(a.slug, b.slug));
        });
        const { items, total } = await allPages(h, op.auth, `sort=${sort}&order=${order}`, 7);
        expect(total).toBe(60);
        expect(items.map((e) => e.slug)).toEqual(expected.map((e) => e.slug));
      }
    }
  });

  test("the most recently changed entries first with sort=updatedAt&order=desc", async () => {
    const clock = new ManualClock(Math.floor(Date.now() / 1000));
    const { h, op } = await fleetOf60(clock);
    const { items } = await allPages(h, op.auth, "sort=slug");
    clock.advance(60);
    const target = items[37].slug;
    expect((await h.request("PATCH", `/api/fleet/${target}`, { headers: op.auth, body: { maxPassengers: 9 } })).status).toBe(200);
    const newest = await h.request("GET", "/api/fleet?sort=updatedAt&order=desc&limit=1", { headers: op.auth });
    expect(newest.body.data.items.map((e: any) => e.slug)).toEqual([target]);
    const oldest = await h.request("GET", "/api/fleet?sort=updatedAt&limit=60", { headers: op.auth });
    expect(oldest.body.data.items.at(-1).slug).toBe(target);
  });

  test("filters: type (any case), active, text in name or slug; total counts the matches; another company's never appear", async () => {
    const { h, op } = await fleetOf60();
    const { items: everything } = await allPages(h, op.auth, "");
    const check = async (query: string, keep: (e: any) => boolean) => {
      const { items, total } = await allPages(h, op.auth, query, 10);
      const expected = everything.filter(keep);
      expect(expected.length).toBeGreaterThan(0);
      expect(total).toBe(expected.length);
      expect(items.map((e) => e.slug)).toEqual(expected.map((e) => e.slug));
    };
    await check("type=suv", (e) => e.type === "SUV");
    await check("active=false", (e) => !e.active);
    await check("active=true&type=LIMO", (e) => e.active && e.type === "LIMO");
    await check("q=ESCALADE", (e) => e.name.toLowerCase().includes("escalade"));
    await check("q=LINCOLN", (e) => e.name.toLowerCase().includes("lincoln"));
    // % and _ are the characters themselves, not wildcards.
    await check(`q=${encodeURIComponent("100%")}`, (e) => e.name.includes("100%"));
    await check("q=model_x", (e) => e.name.toLowerCase().includes("model_x"));
    await check(`q=${encodeURIComponent(everything[3].slug.slice(-6))}`, (e) => e.slug.includes(everything[3].slug.slice(-6)) || e.name.toLowerCase().includes(everything[3].slug.slice(-6)));
    const none = await h.request("GET", "/api/fleet?q=stranger", { headers: op.auth });
    expect(none.body.data).toMatchObject({ items: [], total: 0 });
    const sorted = await h.request("GET", "/api/fleet?type=SUV&sort=maxPassengers&order=desc&limit=3", { headers: op.auth });
    const suvs = everything.filter((e) => e.type === "SUV").sort((a, b) => b.maxPassengers - a.maxPassengers || byBytes(b.slug, a.slug));
    expect(sorted.body.data.items.map((e: any) => e.slug)).toEqual(suvs.slice(0, 3).map((e) => e.slug));
  });

  test("bad values are 400 naming each parameter", async () => {
    const { h, op } = await fleetOf60();
    const bad = async (query: string) => {
      const res = await h.request("GET", `/api/fleet?${query}`, { headers: op.auth });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ success: false, code: "VALIDATION_FAILED" });
      return res.body.errors.map((e: { field: string }) => e.field);
    };
    expect(await bad("sort=price")).toEqual(["sort"]);
    expect(await bad("order=up")).toEqual(["order"]);
    expect(await bad("active=yes")).toEqual(["active"]);
    expect(await bad(`type=${encodeURIComponent("S U V")}`)).toEqual(["type"]);
    expect(await bad(`q=${"x".repeat(201)}`)).toEqual(["q"]);
    expect(await bad("limit=101")).toEqual(["limit"]);
    expect((await bad(`q=${"x".repeat(401)}`)).join()).toContain("q");
    expect(await bad("sort=price&order=sideways&limit=0&active=1")).toEqual(["limit", "sort", "order", "active"]);
    const message = (await h.request("GET", "/api/fleet?sort=price", { headers: op.auth })).body.errors[0].message;
    expect(message).toContain("maxPassengers");
  });
});
