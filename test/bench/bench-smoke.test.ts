import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BUN, ROOT } from "../support/process";

// Every benchmark part, with tiny fixtures and sub-second runs, so the benchmark code cannot rot.
// (The real figures come from `npm run bench`; nothing here judges speed.)
const dir = mkdtempSync(join(tmpdir(), "tripswitch-bench-smoke-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const hasWrk = Bun.which("wrk") !== null;

function startPart(part: string) {
  return Bun.spawn([BUN, join(ROOT, "bench/index.ts"), part], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/tmp", BENCH_SMOKE: "1", BENCH_DIR: dir },
    stdout: "pipe",
    stderr: "pipe",
  });
}

async function runPart(part: string, limitMs = 50_000): Promise<string> {
  const proc = startPart(part);
  // SIGTERM first: the bench then ends the processes it started (a SIGKILL would leave them running).
  const timer = setTimeout(() => {
    proc.kill("SIGTERM");
    setTimeout(() => proc.kill("SIGKILL"), 5_000).unref();
  }, limitMs);
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

  test("events: open event streams under booking changes against the same load without streams", async () => {
    const out = await runPart("events");
    expect(out).toMatch(/event delivery p99 \(change sent → its event on each of 20 streams\), 10 changes\/s for 2 s: [\d.,]+ ms/);
    expect(out).toContain("baseline no streams");
    expect(out).toMatch(/service resident memory \(peak\) with 20 open streams.*MiB/);
  });

  test("growth: one company flooding its stores against its bounds, a neighbour's normal writes as the baseline", async () => {
    const out = await runPart("growth");
    expect(out).toMatch(/database growth while one company floods for 3 s at its budgets.*MB/);
    expect(out).toMatch(/flooder's live events [\d.,]+ MB \(bound 50\.0 MB\)/);
    expect(out).toContain("baseline the neighbour's normal bookings");
  });

  test("tracking: positions pushed by the bookings' provider against one upsert per transaction", async () => {
    const out = await runPart("tracking");
    expect(out).toMatch(/positions absorbed, 300 bookings pushing once a second, GPSgrab batches of 100 .*positions\/s/);
    expect(out).toMatch(/positions absorbed, 300 bookings, one saveGPScache per position.*positions\/s/);
    expect(out).toContain("baseline naive: one position upserted per transaction (FULL)");
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

  test.skipIf(!hasWrk)("postgres: intake and search on one and two PostgreSQL instances against the SQLite service", async () => {
    // It starts a PostgreSQL cluster, imports the fixture and starts three services: more time than the others.
    const out = await runPart("postgres", 100_000);
    expect(out).toMatch(/sendTrip NEW over HTTP, PostgreSQL \(durable[^)]*\), 1 instance, 64 connections: .*trips\/s/);
    expect(out).toMatch(/sendTrip NEW over HTTP, PostgreSQL \(durable[^)]*\), 2 instances, 32 \+ 32 connections at once \(rates summed\): .*trips\/s/);
    expect(out).toMatch(/GET \/api\/search\/fleet at 2,000, PostgreSQL \(durable[^)]*\), 1 instance, .*requests\/s/);
    expect(out).toMatch(/GET \/api\/search\/fleet at 2,000, PostgreSQL \(durable[^)]*\), 2 instances, .*requests\/s/);
    expect(out).toContain("baseline the SQLite service, 1 instance, same load (WAL + synchronous=FULL)");
    expect(out).toContain("baseline the SQLite service, 1 instance, same load:");
  }, 110_000);

  test.skipIf(!hasWrk)("freshness: changes become visible; search p99 with and without changes", async () => {
    const out = await runPart("freshness");
    expect(out).toMatch(/change visible in search at 2,000/);
    expect(out).toContain("baseline idle search p99");
  });

  /** A process's state letter and parent pid from /proc, or undefined once it is gone. */
  function processOf(pid: number | string): { state: string; ppid: number } | undefined {
    try {
      // The fields after the command's closing parenthesis: state, ppid, …
      const [state, ppid] = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
      return { state, ppid: Number(ppid) };
    } catch {
      return undefined;
    }
  }
  const alive = (pid: number) => {
    const p = processOf(pid);
    return p !== undefined && p.state !== "Z";
  };
  /** The pids of the running processes whose parent is `pid`. */
  const childrenOf = (pid: number) =>
    readdirSync("/proc")
      .filter((entry) => /^\d+$/.test(entry) && processOf(entry)?.ppid === pid)
      .map(Number)
      .filter(alive);

  test.skipIf(!hasWrk || process.platform !== "linux")("a bench stopped by SIGTERM ends the processes it started", async () => {
    const proc = startPart("http");
    let started: number[] = [];
    try {
      // Bounded: the http part starts the service, then the two ceiling servers, within seconds.
      for (let i = 0; i < 400 && started.length < 3; i++) {
        await Bun.sleep(25);
        started = childrenOf(proc.pid);
      }
      expect(started.length).toBeGreaterThanOrEqual(3);
      proc.kill("SIGTERM");
      expect(await proc.exited).toBe(143);
      let left = started;
      for (let i = 0; i < 200 && left.length > 0; i++) {
        await Bun.sleep(25);
        left = left.filter(alive);
      }
      expect(left).toEqual([]);
    } finally {
      proc.kill("SIGKILL");
      // Whatever the outcome, this test leaves nothing running.
      for (const pid of started.filter(alive)) process.kill(pid, "SIGKILL");
    }
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
