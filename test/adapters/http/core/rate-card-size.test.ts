import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createHarness, TEST_JWT_SECRET, type Harness } from "../../../support/harness";
import { runCli, tempDir } from "../../../support/process";
import { party, type Party } from "../../../support/trips";

/**
 * A rate card takes at most 1 MiB as sent (docs/rates.md#setting-the-card), through PUT /api/company/rates (whatever
 * MAX_BODY_BYTES allows other bodies: 4 MiB here) and the CLI's `rates import` (a larger file refused before it is
 * read, a pipe or device as soon as it passes 1 MiB); nothing saved, on both databases.
 */

const dir = tempDir("tripswitch-card-size-");
let h: Harness;
let op: Party;
const bearer = (p: Party) => ({ authorization: `Bearer ${p.jwt}` });
const cli = (...args: string[]) => runCli(args, { ...h.cliEnv, JWT_SECRET: TEST_JWT_SECRET });

/** A valid card of `routes` routes between 60-point polygons around New York (each route ~2.2 KB as JSON). */
function bigCard(routes: number) {
  const ring = (lat: number, lon: number): Array<[number, number]> => {
    const points: Array<[number, number]> = [];
    for (let i = 0; i < 59; i++) {
      const a = (i / 59) * 2 * Math.PI;
      points.push([Number((lon + 0.05 * Math.cos(a)).toFixed(9)), Number((lat + 0.05 * Math.sin(a)).toFixed(9))]);
    }
    return [...points, points[0]];
  };
  return {
    currency: "USD",
    routes: Array.from({ length: routes }, (_, i) => ({
      id: `zone-${i}`,
      from: { polygon: ring(40.5 + (i % 40) * 0.01, -74.2 + Math.floor(i / 40) * 0.01) },
      to: { lat: 40.758, lon: -73.9855, radiusKm: 8 },
      price: "95.00",
    })),
  };
}

const sizeOf = (value: unknown) => Buffer.byteLength(JSON.stringify(value));

beforeAll(async () => {
  h = createHarness({ dbPath: join(dir, "cards.sqlite"), maxBodyBytes: 4 * 1024 * 1024 });
  op = await party(h, "CS-OPS", "IO");
});

afterAll(async () => {
  await h.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("a rate card takes at most 1 MiB", () => {
  test("PUT /api/company/rates: a 1.5 MiB card is 413 PAYLOAD_TOO_LARGE and nothing is saved; one under 1 MiB is saved", async () => {
    const big = bigCard(900);
    expect(sizeOf(big)).toBeGreaterThan(1.4 * 1024 * 1024);
    const refused = await h.request("PUT", "/api/company/rates", { headers: bearer(op), body: big });
    expect(refused.status).toBe(413);
    expect(refused.body).toMatchObject({ code: "PAYLOAD_TOO_LARGE", message: "The request body exceeds the limit of 1048576 bytes" });
    expect((await h.request("GET", "/api/company/rates", { headers: bearer(op) })).status).toBe(404);
    // The same kind of card under the bound is a card like any other.
    const fits = bigCard(400);
    expect(sizeOf(fits)).toBeLessThan(1024 * 1024);
    const saved = await h.request("PUT", "/api/company/rates", { headers: bearer(op), body: fits });
    expect(saved.status).toBe(200);
    expect(saved.body.data.routes).toHaveLength(400);
  });

  test("rates import: a 1.5 MiB file is refused by its size before it is read (exit 1), nothing saved; an endless device too", async () => {
    const file = join(dir, "big-card.json");
    writeFileSync(file, JSON.stringify(bigCard(900)));
    const before = (await h.request("GET", "/api/company/rates", { headers: bearer(op) })).body.data;
    const refused = await cli("rates", "import", op.netid, file);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`rates import: ${file}: ${sizeOf(bigCard(900))} bytes; a rate card takes at most 1048576 bytes; nothing saved`);
    // /dev/zero never ends: read as a stream, it is refused once it passes the bound.
    const endless = await cli("rates", "import", op.netid, "/dev/zero");
    expect(endless.code).toBe(1);
    expect(endless.stderr).toContain("rates import: /dev/zero: more than 1048576 bytes; a rate card takes at most 1048576 bytes; nothing saved");
    expect((await h.request("GET", "/api/company/rates", { headers: bearer(op) })).body.data).toEqual(before);
    // A card under the bound imports.
    const fits = join(dir, "card.json");
    writeFileSync(fits, JSON.stringify(bigCard(300)));
    const done = await cli("rates", "import", op.netid, fits);
    expect({ code: done.code, stderr: done.stderr }).toEqual({ code: 0, stderr: "" });
  }, 60_000);
});
