import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createServices } from "../../src/services";
import { migrate, openDatabase } from "../../adapters/sqlite/db";
import { registerCompany } from "../../domain/usecases/register-company";
import { TEST_JWT_SECRET } from "../support/harness";

const BUN = join(import.meta.dir, "../../node_modules/.bin/bun");
const MAIN = join(import.meta.dir, "../../src/main.ts");
const NETID = "CSV-LIMO";
let dir: string;
let dbPath: string;

/** A fleet CSV of `count` valid rows (generated, not committed); `broken` maps row index → replacement cells. */
function fleetCsv(count: number, broken: Record<number, string> = {}): string {
  const lines = ["type,name,description,imageUrl,maxPassengers,maxLuggage,lat,lon,airports,minimum_rate,hourly_rate,currency,active"];
  for (let i = 0; i < count; i++) {
    lines.push(
      broken[i] ??
        `SEDAN,"Sedan ${i}","Black sedan, leather",https://img.example/${i}.jpg,3,${i % 5 === 0 ? "" : 3},${(40.6 + (i % 100) / 1000).toFixed(4)},${(-73.7 - (i % 77) / 1000).toFixed(4)},JFK;LGA,95.50,80,USD,true`,
    );
  }
  return lines.join("\n") + "\n";
}

async function runCli(...args: string[]) {
  const proc = Bun.spawn([BUN, MAIN, ...args], {
    env: { ...process.env, DB_PATH: dbPath, JWT_SECRET: TEST_JWT_SECRET, LOG_LEVEL: "silent" },
    stdout: "pipe",
    stderr: "pipe",
  });
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  return { stdout, stderr, code };
}

function fleetCount(): number {
  const db = openDatabase(dbPath);
  const n = db.$client.query<{ n: number }, []>("SELECT count(*) AS n FROM fleet_entries").get()!.n;
  db.$client.close();
  return n;
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "tripswitch-import-"));
  dbPath = join(dir, "db.sqlite");
  const db = openDatabase(dbPath);
  migrate(db);
  const services = createServices(db, { jwtSecret: TEST_JWT_SECRET, tokenTtlSeconds: 3600 });
  const pw = "correct horse battery staple";
  await registerCompany(services.registration, { name: "CSV Limo", netid: NETID, mainEmail: "ops@csv-limo.example", password: pw, confirmPassword: pw, mainPhone: "+12125550199", coType: "IO" });
  // 10,000 entries are past the FREE plan's fleet quota (2,000).
  await services.companies.setPlan(NETID, "PROFESSIONAL");
  services.fleetIndex.close();
  db.$client.close();
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("fleet import CLI", () => {
  test("refuses a file with invalid rows, names them by line, and imports nothing", async () => {
    const file = join(dir, "broken.csv");
    writeFileSync(
      file,
      fleetCsv(10_000, {
        4: `SEDAN,"Bad seats",,,0,3,40.6,-73.7,JFK,95,80,USD,true`,
        9_998: `SEDAN,"Bad place",,ftp://x.example/a.jpg,3,3,95,-73.7,XQZ,95,abc,USD,true`,
      }),
    );
    const { code, stderr } = await runCli("fleet", "import", NETID, file);
    expect(code).toBe(1);
    // Row 4 is on line 6 (header on line 1, rows from line 2).
    expect(stderr).toContain("line 6: maxPassengers:");
    expect(stderr).toContain("line 10000: imageUrl:");
    expect(stderr).toContain("line 10000: lat:");
    expect(stderr).toContain("line 10000: airports: unknown IATA code: XQZ");
    expect(stderr).toContain("line 10000: hourly_rate:");
    expect(fleetCount()).toBe(0);
  });

  test("imports a 10,000-row CSV", async () => {
    const file = join(dir, "fleet.csv");
    writeFileSync(file, fleetCsv(10_000));
    const { code, stdout } = await runCli("fleet", "import", NETID, file);
    expect(code).toBe(0);
    expect(stdout).toContain("imported 10000 fleet entries");
    expect(fleetCount()).toBe(10_000);
  });

  test("--mode (docs/operator.md#fleet-import): the same file again (upsert, the default) changes nothing; replace makes the file the fleet; a bad mode exits 2", async () => {
    const file = join(dir, "fleet.csv");
    const again = await runCli("fleet", "import", NETID, file);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain("(upsert): 0 created, 0 updated, 0 deleted, 10000 unchanged");
    expect(fleetCount()).toBe(10_000);
    const small = join(dir, "small.csv");
    writeFileSync(small, fleetCsv(3));
    const replaced = await runCli("fleet", "import", NETID, small, "--mode", "replace");
    expect(replaced.code).toBe(0);
    expect(replaced.stdout).toContain("(replace): 0 created, 0 updated, 9997 deleted, 3 unchanged");
    expect(fleetCount()).toBe(3);
    const appended = await runCli("fleet", "import", "--mode=append", NETID, small);
    expect(appended.stdout).toContain("(append): 3 created");
    expect(fleetCount()).toBe(6);
    const bad = await runCli("fleet", "import", NETID, small, "--mode", "merge");
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("--mode must be one of upsert, replace, append");
  }, 60_000);

  test("bad arguments exit 2 with the usage on stderr", async () => {
    const missing = await runCli("fleet", "import", NETID);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("fleet import <netid>");
    expect((await runCli("fleet", "import", NETID, join(dir, "fleet.txt"))).code).toBe(2);
    expect((await runCli("fleet", "import", NETID, join(dir, "absent.csv"))).code).toBe(2);
  });
});
