// Part 3: trip intake over HTTP — sendTrip NEW from 64 concurrent clients, every request a new booking —
// against the raw single-row insert rate of bun:sqlite with the same durability (WAL, synchronous=FULL).
import { copyFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { Database } from "bun:sqlite";
import example from "../adapters/http/examples/sendtrip-new.json";
import { BENCH_DIR, removeDatabase, BENCH_OPERATORS, BENCH_PASSWORD, BENCH_PLATFORM, fixtureDatabase } from "./fixtures";
import { wrk } from "./load";
import { printFigure, SMOKE, type Figure } from "./report";
import { startService } from "./http-search";

export interface IntakeBenchOptions {
  runs: number;
  seconds: number;
  connections: number;
}

export const DEFAULT_INTAKE_OPTIONS: IntakeBenchOptions = SMOKE ? { runs: 1, seconds: 1, connections: 64 } : { runs: 3, seconds: 5, connections: 64 };

/** Inserts one row per transaction for `seconds`, as fast as the disk acknowledges them (the same durability as the service). */
export function rawInsertRate(path: string, seconds: number, payloadBytes: number): { rps: number; p99Ms: number } {
  for (const suffix of ["", "-wal", "-shm"]) rmSync(path + suffix, { force: true });
  const db = new Database(path, { create: true });
  db.exec("PRAGMA journal_mode = WAL");
  db.exec("PRAGMA synchronous = FULL");
  db.exec("CREATE TABLE trips (id INTEGER PRIMARY KEY, ref TEXT UNIQUE NOT NULL, body TEXT NOT NULL)");
  const insert = db.query("INSERT INTO trips (ref, body) VALUES (?, ?)");
  const body = "x".repeat(payloadBytes);
  const latencies: number[] = [];
  const start = performance.now();
  let n = 0;
  // Bounded by time and count.
  while (performance.now() - start < seconds * 1000 && n < 10_000_000) {
    const t0 = performance.now();
    insert.run(`ref-${n}`, body);
    latencies.push(performance.now() - t0);
    n++;
  }
  const elapsed = performance.now() - start;
  db.close();
  for (const suffix of ["", "-wal", "-shm"]) rmSync(path + suffix, { force: true });
  latencies.sort((a, b) => a - b);
  return { rps: (n / elapsed) * 1000, p99Ms: latencies[Math.min(latencies.length - 1, Math.ceil(0.99 * latencies.length) - 1)] };
}

export async function benchIntake(options: IntakeBenchOptions = DEFAULT_INTAKE_OPTIONS): Promise<Figure[]> {
  const fixture = await fixtureDatabase(SMOKE ? 2_000 : 10_000);
  const dbPath = join(BENCH_DIR, `intake-${process.pid}.sqlite`);
  removeDatabase(dbPath);
  copyFileSync(fixture, dbPath);
  const { child, base } = await startService(dbPath);
  const service: Array<{ rps: number; p99Ms: number }> = [];
  const raw: Array<{ rps: number; p99Ms: number }> = [];
  try {
    const tokenRes = await fetch(`${base}/Platform.svc/getToken2`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ uid: BENCH_PLATFORM, pw: BENCH_PASSWORD }) });
    const token = (await tokenRes.json()) as string;
    const body = structuredClone(example) as Record<string, any>;
    body.affiliateReservation = { ...body.affiliateReservation, requesterId: BENCH_PLATFORM, providerId: BENCH_OPERATORS[0], requesterResNo: "@RESNO@" };
    const [before, after] = JSON.stringify(body).split("@RESNO@");
    const check = await fetch(`${base}/Platform.svc/sendTrip/V1`, { method: "POST", headers: { "content-type": "application/json", token }, body: `${before}check-${Date.now()}${after}` });
    if (check.status !== 200) throw new Error(`sendTrip: ${check.status} ${await check.text()}`);
    const load = { seconds: options.seconds, connections: options.connections, method: "POST", headers: { "content-type": "application/json", token }, uniqueBody: { before, after } };
    if (!SMOKE) await wrk(base, ["/Platform.svc/sendTrip/V1"], { ...load, seconds: 1 });
    for (let r = 0; r < options.runs; r++) {
      const result = await wrk(base, ["/Platform.svc/sendTrip/V1"], load);
      if (result.errors > 0) throw new Error(`sendTrip answered ${result.errors} errors under load`);
      service.push(result);
      raw.push(rawInsertRate(join(BENCH_DIR, `raw-insert-${process.pid}.sqlite`), options.seconds, 1500));
    }
  } finally {
    await child.stop();
    removeDatabase(dbPath);
  }
  const figures: Figure[] = [
    {
      part: "intake",
      name: `sendTrip NEW over HTTP (${options.connections} connections, synchronous=FULL)`,
      unit: "trips/s",
      measured: service.map((s) => s.rps),
      baseline: { name: "raw bun:sqlite single-row insert, one transaction each, WAL + synchronous=FULL", runs: raw.map((s) => s.rps) },
      better: "higher",
      target: { value: 10_000, text: "≥ 10,000 trips/s" },
    },
    {
      part: "intake",
      name: "sendTrip NEW p99",
      unit: "ms",
      measured: service.map((s) => s.p99Ms),
      baseline: { name: "raw single-row insert commit", runs: raw.map((s) => s.p99Ms) },
      better: "lower",
      target: { value: 25, text: "≤ 25 ms" },
    },
  ];
  figures.forEach(printFigure);
  return figures;
}

if (import.meta.main) await benchIntake();
