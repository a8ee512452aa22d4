import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { rmSync, truncateSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createHarness, TEST_JWT_SECRET, type Harness } from "../../../support/harness";
import { runCli, tempDir } from "../../../support/process";
import { party, type Party } from "../../../support/trips";

/**
 * What `fx import` takes (docs/fx.md#the-fx-table), on both databases: the file read as a stream and refused past
 * 8 MiB (by its size before reading, a device as soon as it passes it); a table older than the one in use, or with
 * a rate outside 0.0001–1,000,000 per EUR, refused naming the date or the currency unless `--force`. Nothing saved
 * on a refusal; GET /api/fx shows what is in use.
 */

const dir = tempDir("tripswitch-fx-checks-");
let h: Harness;
let who: Party;
const cli = (...args: string[]) => runCli(args, { ...h.cliEnv, JWT_SECRET: TEST_JWT_SECRET });
const inUse = async () => (await h.request("GET", "/api/fx", { headers: { authorization: `Bearer ${who.jwt}` } })).body.data;
/** The table in use once the service has seen an import of `date` (within 5 s: it checks the stored table's stamp). */
async function inUseOf(date: string) {
  const started = Date.now();
  let table = await inUse();
  while (table.date !== date && Date.now() - started < 5_000) {
    await Bun.sleep(100);
    table = await inUse();
  }
  return table;
}

/** An ECB CSV of one day ("27 June 2024") with these rates. */
function csv(name: string, day: string, rates: Record<string, string>): string {
  const file = join(dir, name);
  const codes = Object.keys(rates);
  writeFileSync(file, `Date, ${codes.join(", ")}, \n${day}, ${codes.map((c) => rates[c]).join(", ")}, \n`);
  return file;
}

beforeAll(async () => {
  h = createHarness({ dbPath: join(dir, "fx.sqlite") });
  who = await party(h, "FXC-OPS", "IO");
});

afterAll(async () => {
  await h.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("fx import's bounds", () => {
  test("a file past 8 MiB is refused by its size before it is read, an endless device once it passes 8 MiB; nothing saved", async () => {
    const huge = join(dir, "huge.xml");
    writeFileSync(huge, "");
    truncateSync(huge, 64 * 1024 * 1024);
    const refused = await cli("fx", "import", huge);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`file: ${huge}: 67108864 bytes; an FX file takes at most 8388608 bytes`);
    const endless = await cli("fx", "import", "/dev/zero");
    expect(endless.code).toBe(1);
    expect(endless.stderr).toContain("file: /dev/zero: more than 8388608 bytes; an FX file takes at most 8388608 bytes");
    expect(await h.count("fx_rates")).toBe(0);
  }, 60_000);

  test("a table older than the one in use is refused naming its date, unless --force", async () => {
    expect((await inUse()).date).toBe("2024-06-28");
    const older = csv("older.csv", "27 June 2024", { USD: "1.0700", JPY: "171.50" });
    const refused = await cli("fx", "import", older);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("date: 2024-06-27 is older than the table in use (2024-06-28)");
    expect(refused.stderr).toContain("fx import --force imports it all the same");
    expect(await h.count("fx_rates")).toBe(0);
    const forced = await cli("fx", "import", older, "--force");
    expect({ code: forced.code, stderr: forced.stderr }).toEqual({ code: 0, stderr: "" });
    expect(await inUseOf("2024-06-27")).toMatchObject({ date: "2024-06-27", rates: { USD: 1.07, JPY: 171.5 } });
    // The same day again is not older: it imports unforced.
    expect((await cli("fx", "import", csv("same.csv", "27 June 2024", { USD: "1.0710" }))).code).toBe(0);
  }, 60_000);

  test("a rate outside 0.0001–1,000,000 per EUR is refused naming the currency, unless --force", async () => {
    const absurd = csv("absurd.csv", "28 June 2024", { USD: "1.0705", JPY: "1719400000", GBP: "0.00008" });
    const refused = await cli("fx", "import", absurd);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("rates.JPY: 1719400000 JPY per EUR is outside 0.0001–1000000 per EUR");
    expect(refused.stderr).toContain("rates.GBP: 0.00008 GBP per EUR is outside 0.0001–1000000 per EUR");
    expect(refused.stderr).not.toContain("rates.USD");
    expect((await inUse()).date).toBe("2024-06-27");
    const forced = await cli("fx", "import", absurd, "--force");
    expect(forced.code).toBe(0);
    expect(await inUseOf("2024-06-28")).toMatchObject({ date: "2024-06-28", rates: { JPY: 1719400000, GBP: 0.00008 } });
  }, 60_000);
});
