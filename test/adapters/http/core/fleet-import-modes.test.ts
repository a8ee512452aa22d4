import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createHarness, type Harness } from "../../../support/harness";
import { company, vehicle } from "../../../support/fleet";
import { party } from "../../../support/trips";

/** Fleet import modes (docs/operator.md#fleet-import): upsert by externalId or slug, replace, append; the same file twice changes nothing. */
let h: Harness;
beforeAll(() => {
  h = createHarness();
});
afterAll(() => h?.close());

type Op = Awaited<ReturnType<typeof company>>;
const upload = (op: Op, rows: unknown[], mode?: string) =>
  h.request("POST", `/api/fleet/import${mode === undefined ? "" : `?mode=${encodeURIComponent(mode)}`}`, { body: rows, headers: op.auth });
const listing = async (op: Op) => (await h.request("GET", "/api/fleet?limit=100", { headers: op.auth })).body.data.items as Array<Record<string, any>>;
const mine = (op: Op) => `${op.netid.toLowerCase()}-my-sprinter`;
const file = (op: Op) => [
  vehicle({ name: "Escalade", type: "SUV", externalId: "CAR-1", maxPassengers: 6 }),
  vehicle({ name: "Sedan" }),
  vehicle({ name: "Sedan", hourly_rate: 75 }),
  vehicle({ name: "Sprinter", slug: mine(op), type: "SPRINTER", maxPassengers: 12 }),
];

describe("POST /api/fleet/import?mode=", () => {
  test("upsert is the default: the same file twice leaves the fleet unchanged, and the answer counts it", async () => {
    const op = await company(h);
    const first = await upload(op, file(op));
    expect(first.status).toBe(200);
    expect(first.body.data).toMatchObject({ created: 4, updated: 0, deleted: 0, unchanged: 0 });
    const before = await listing(op);
    expect(before.map((e) => e.slug).sort()).toEqual([`${op.netid.toLowerCase()}-escalade`, `${op.netid.toLowerCase()}-sedan`, `${op.netid.toLowerCase()}-sedan-2`, mine(op)].sort());
    expect(before.find((e) => e.name === "Escalade")!.externalId).toBe("CAR-1");
    expect(before.find((e) => e.slug === mine(op))!.externalId).toBeNull();
    const again = await upload(op, file(op), "upsert");
    expect(again.status).toBe(200);
    expect(again.body.data).toMatchObject({ created: 0, updated: 0, deleted: 0, unchanged: 4 });
    expect(await listing(op)).toEqual(before);
  });

  test("upsert updates the entry an externalId names even under a new name, and the one a slug names", async () => {
    const op = await company(h);
    expect((await upload(op, file(op))).status).toBe(200);
    const changed = [vehicle({ name: "Escalade ESV", type: "SUV", externalId: "CAR-1", maxPassengers: 7 }), vehicle({ name: "Van", slug: mine(op), type: "VAN", maxPassengers: 8 })];
    const res = await upload(op, changed);
    expect(res.body.data).toMatchObject({ created: 0, updated: 2, deleted: 0, unchanged: 0 });
    const items = await listing(op);
    expect(items.length).toBe(4);
    expect(items.find((e) => e.externalId === "CAR-1")).toMatchObject({ slug: `${op.netid.toLowerCase()}-escalade`, name: "Escalade ESV", maxPassengers: 7 });
    expect(items.find((e) => e.slug === mine(op))).toMatchObject({ name: "Van", type: "VAN" });
  });

  test("replace makes the file the whole fleet; append always adds", async () => {
    const op = await company(h);
    expect((await upload(op, file(op))).status).toBe(200);
    const res = await upload(op, [file(op)[0], vehicle({ name: "New Car" })], "replace");
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ created: 1, updated: 0, deleted: 3, unchanged: 1 });
    expect((await listing(op)).map((e) => e.name).sort()).toEqual(["Escalade", "New Car"]);
    const again = await upload(op, [file(op)[0], vehicle({ name: "New Car" })], "replace");
    expect(again.body.data).toMatchObject({ created: 0, updated: 0, deleted: 0, unchanged: 2 });
    const appended = await upload(op, [vehicle({ name: "New Car" })], "append");
    expect(appended.body.data).toMatchObject({ created: 1, updated: 0, deleted: 0 });
    expect((await listing(op)).length).toBe(3);
    // append cannot take an externalId the fleet already has
    const clash = await upload(op, [file(op)[0]], "append");
    expect(clash.status).toBe(400);
    expect(clash.body.errors).toContainEqual({ field: "[0].externalId", message: expect.stringContaining("already used") });
  });

  test("a bad mode is 400 naming mode; a file naming one externalId twice is 400 naming the row; nothing saved", async () => {
    const op = await company(h);
    const bad = await upload(op, file(op), "merge");
    expect(bad.status).toBe(400);
    expect(bad.body.errors).toEqual([{ field: "mode", message: expect.stringContaining("upsert") }]);
    const twice = await upload(op, [file(op)[0], { ...file(op)[0], name: "Other" }]);
    expect(twice.status).toBe(400);
    expect(twice.body.errors).toContainEqual({ field: "[1].externalId", message: expect.stringContaining("row 0") });
    expect(await listing(op)).toEqual([]);
  });

  test("a slug another company has is 400 naming the row's slug, nothing saved", async () => {
    const op = await company(h);
    const other = await company(h);
    expect((await upload(op, file(op))).status).toBe(200);
    const res = await upload(other, [vehicle({ name: "Mine" }), vehicle({ name: "Theirs", slug: mine(op) })]);
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([{ field: "[1].slug", message: expect.stringContaining("another company") }]);
    expect(await listing(other)).toEqual([]);
  });

  test("externalId is unique per company through the entry API, and another company may use the same one", async () => {
    const op = await company(h);
    const other = await company(h);
    const add = (who: Op, body: unknown) => h.request("POST", "/api/fleet", { body, headers: who.auth });
    const first = await add(op, vehicle({ name: "A", externalId: "X-1" }));
    expect(first.status).toBe(200);
    expect(first.body.data.externalId).toBe("X-1");
    const dup = await add(op, vehicle({ name: "B", externalId: "X-1" }));
    expect(dup.status).toBe(400);
    expect(dup.body.errors).toEqual([{ field: "externalId", message: expect.any(String) }]);
    expect((await add(other, vehicle({ name: "A", externalId: "X-1" }))).status).toBe(200);
    const b = await add(op, vehicle({ name: "B" }));
    const patch = await h.request("PATCH", `/api/fleet/${b.body.data.slug}`, { body: { externalId: "X-1" }, headers: op.auth });
    expect(patch.status).toBe(400);
    expect(patch.body.errors[0].field).toBe("externalId");
    const long = await add(op, vehicle({ name: "C", externalId: "x".repeat(101) }));
    expect(long.status).toBe(400);
    expect(long.body.errors[0].field).toBe("externalId");
  });

  test("a JPY rate with decimals is 400 naming the rate; whole yen are taken", async () => {
    const op = await company(h);
    const bad = await h.request("POST", "/api/fleet", { body: vehicle({ currency: "JPY", minimum_rate: 5000.5, hourly_rate: 4000 }), headers: op.auth });
    expect(bad.status).toBe(400);
    expect(bad.body.errors).toEqual([{ field: "minimum_rate", message: expect.stringContaining("JPY") }]);
    const row = await upload(op, [vehicle({ currency: "JPY", minimum_rate: 5000, hourly_rate: 4000.25 })]);
    expect(row.status).toBe(400);
    expect(row.body.errors).toEqual([{ field: "[0].hourly_rate", message: expect.stringContaining("JPY") }]);
    expect((await h.request("POST", "/api/fleet", { body: vehicle({ currency: "JPY", minimum_rate: 5000, hourly_rate: 4000 }), headers: op.auth })).status).toBe(200);
  });

  test("replace refuses to delete a vehicle a live booking holds: 409 naming it, nothing changed", async () => {
    const provider = await party(h, "HOLD-OPS", "IO");
    const requester = await party(h, "HOLD-BOOK", "CO");
    const auth = { authorization: `Bearer ${provider.jwt}` };
    const res = await h.request("POST", "/api/fleet/import", { body: [vehicle({ name: "Held Car", lat: 40.6413, lon: -73.7781 })], headers: auth });
    expect(res.status).toBe(200);
    const slug = res.body.data.slugs[0];
    await Bun.sleep(1200); // search sees the fleet within a second
    const quote = await h.request("POST", "/api/quotes", {
      headers: { authorization: `Bearer ${requester.jwt}` },
      body: {
        passengerCount: "2",
        locations: {
          pickup: { locationType: "airport", address: "JFK", time: new Date(Date.now() + 7 * 86400_000).toISOString().slice(0, 19) },
          dropOff: { locationType: "address", address: "200 Park Ave, New York, NY", lat: "40.7536", lon: "-73.9767" },
        },
      },
    });
    expect(quote.status).toBe(200);
    const option = quote.body.data.options.find((o: { provider: { netid: string } }) => o.provider.netid === "HOLD-OPS");
    expect(option).toBeDefined();
    const booked = await h.request("POST", `/api/quotes/${quote.body.data.quoteId}/book`, {
      headers: { authorization: `Bearer ${requester.jwt}` },
      body: { quoteOptionId: option.quoteOptionId, requesterResNo: "HOLD-1", passengers: [{ firstName: "Ada", lastName: "Lovelace" }] },
    });
    expect(booked.status).toBe(200);
    const refused = await h.request("POST", "/api/fleet/import?mode=replace", { body: [vehicle({ name: "Other Car" })], headers: auth });
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({ success: false, code: "VEHICLES_HELD", vehicles: [{ slug, transactionId: booked.body.transactionId }] });
    expect(refused.body.message).toContain(slug);
    const items = (await h.request("GET", "/api/fleet", { headers: auth })).body.data.items;
    expect(items.map((e: { slug: string }) => e.slug)).toEqual([slug]);
  }, 30_000);
});
