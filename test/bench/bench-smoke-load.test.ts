import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { hasWrk, runPart, startPart } from "./smoke-support";

describe("benchmark smoke run under load (wrk)", () => {
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

  test.skipIf(!hasWrk)("postgres: intake at two stored sizes and search, one instance and two behind one port, against the SQLite service", async () => {
    // It starts a PostgreSQL cluster, imports the fixture, seeds two stores and starts five services: more time than the others.
    const out = await runPart("postgres", 150_000);
    expect(out).toContain("bounds lifted for this load, as a high-volume deployment would:");
    expect(out).toContain("LIVE_EVENTS_MAX_BYTES=");
    const pg = "PostgreSQL \\(durable[^)]*\\)";
    expect(out).toMatch(new RegExp(`sendTrip NEW over HTTP, ${pg}, 1 instance, 100 bookings stored, 64 connections: .*trips/s`));
    expect(out).toMatch(new RegExp(`sendTrip NEW over HTTP, ${pg}, 1 instance, 2,500 bookings stored, 64 connections: .*trips/s`));
    expect(out).toMatch(new RegExp(`sendTrip NEW over HTTP, ${pg}, 2 instances behind one port \\(REUSE_PORT=1\\), 64 connections, 100 bookings stored: .*trips/s`));
    expect(out).toMatch(/PostgreSQL execution time a sendTrip NEW .*, 2,500 bookings stored against 100 bookings stored: [\d.,]+ ms[\s\S]*ratio [\d.,]+×/);
    // What each statement costs a booking, from pg_stat_statements: the new bookings' one statement, once per group
    // commit (docs/postgres.md): at most once a booking.
    expect(out).toMatch(/statements a sendTrip NEW costs, 1 instance, 2,500 bookings stored: [\d.,]+ ms of database time/);
    const insert = out.match(/\n\s+([\d.,]+) \|\s+[\d.,]+ \|\s+[\d.,]+ \|\s+[\d.]+% \| WITH b AS \( INSERT INTO bookings/);
    expect(insert).not.toBeNull();
    expect(Number(insert![1])).toBeGreaterThan(0);
    expect(Number(insert![1])).toBeLessThanOrEqual(1);
    expect(out).toMatch(new RegExp(`GET /api/search/fleet at 2,000, ${pg}, 1 instance, .*requests/s`));
    expect(out).toMatch(new RegExp(`GET /api/search/fleet at 2,000, ${pg}, 2 instances behind one port \\(REUSE_PORT=1\\), .*requests/s`));
    expect(out).toContain("baseline the SQLite service, 1 instance, same load (WAL + synchronous=FULL)");
    expect(out).toContain("baseline the SQLite service, 1 instance, same load:");
  }, 170_000);

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
});
