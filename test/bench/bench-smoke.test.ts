import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BUN, ROOT } from "../support/process";

// Every benchmark part, with tiny fixtures and sub-second runs, so the benchmark code cannot rot.
// (The real figures come from `npm run bench`; nothing here judges speed.)
const dir = mkdtempSync(join(tmpdir(), "tripswitch-bench-smoke-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const hasWrk = Bun.which("wrk") !== null;

async function runPart(part: string): Promise<string> {
  const proc = Bun.spawn([BUN, join(ROOT, "bench/index.ts"), part], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/tmp", BENCH_SMOKE: "1", BENCH_DIR: dir },
    stdout: "pipe",
    stderr: "pipe",
  });
  const timer = setTimeout(() => proc.kill("SIGKILL"), 50_000);
  const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  clearTimeout(timer);
  if (code !== 0) throw new Error(`bench ${part} exited ${code}:\n${out}\n${err}`);
  return out;
}

describe("benchmark smoke run", () => {
  test("search: in-process queries against the brute-force scan, every variant", async () => {
    const out = await runPart("search");
    expect(out).toContain("index count + first page at 2,000, no types, no q");
    expect(out).toMatch(/index count \+ first page at 2,000, 4 of the queries only .*queries\/s[\s\S]*baseline the 2,000 queries above/);
    for (const variant of ["no types, no q", "types", "q", "types + q"]) expect(out).toContain(`use case qps at 2,000, ${variant}:`);
    expect(out).toContain("baseline brute-force haversine scan");
  });

  test.skipIf(!hasWrk)("http: fleet search under wrk against the bare Bun.serve ceiling", async () => {
    const out = await runPart("http");
    expect(out).toMatch(/GET \/api\/search\/fleet at 2,000 .*requests\/s/);
    expect(out).toContain("baseline bare Bun.serve");
    expect(out).toMatch(/an Elysia route answering the same prebuilt \d+-byte body .*requests\/s/);
  });

  test.skipIf(!hasWrk)("intake: sendTrip NEW under wrk against raw SQLite inserts", async () => {
    const out = await runPart("intake");
    expect(out).toMatch(/sendTrip NEW over HTTP .*trips\/s/);
    expect(out).toContain("baseline raw bun:sqlite single-row insert");
  });

  test.skipIf(!hasWrk)("freshness: changes become visible; search p99 with and without changes", async () => {
    const out = await runPart("freshness");
    expect(out).toMatch(/change visible in search at 2,000/);
    expect(out).toContain("baseline idle search p99");
  });

  test("startup: time to /readyz and resident memory against an empty fleet", async () => {
    const out = await runPart("startup");
    for (const start of ["first start", "restart"]) {
      expect(out).toMatch(new RegExp(`launch to /readyz 200 with 2,000 fleet entries, ${start} \\([^)]*\\): [\\d,.]+ ms`));
      expect(out).toMatch(new RegExp(`resident memory when ready with 2,000 entries, ${start}: [\\d,.]+ MB`));
    }
    expect(out).toMatch(/launch to \/readyz 200 with 2,000 fleet entries, restart after 100 fleet changes by another process \([^)]*\): [\d,.]+ ms/);
    expect(out).toMatch(/resident memory when ready with 2,000 entries, restart after 100 changes: [\d,.]+ MB/);
  });
});
