// Part 5: start-up and memory of the compiled binary — launch to /readyz = 200, and resident memory once
// ready and after some searches — with the fixture fleet in the database, against the same binary on an
// empty fleet (the runtime's own floor) in the same run. Three kinds of start are measured: the first start
// (no saved index: every entry read and sorted), a restart (the index the last stop saved, loaded), and a
// restart after fleet changes made by another process (the saved index loaded, the changed entries re-read).
import { copyFileSync, existsSync, readFileSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { Database } from "bun:sqlite";
import { migrate, openDatabase } from "../adapters/sqlite/db";
import { BENCH_DIR, removeDatabase, fixtureDatabase } from "./fixtures";
import { tracked } from "./processes";
import { freePort, ROOT, spawnChild, waitFor200 } from "./load";
import { printFigure, SMOKE, type Figure } from "./report";
import { coreToken } from "./http-search";
import { searchQueries, VARIANTS } from "./search";

export interface StartupBenchOptions {
  size: number;
  runs: number;
  /** Fleet entries changed by another process before the third kind of start. */
  changes: number;
}

export const DEFAULT_STARTUP_OPTIONS: StartupBenchOptions = SMOKE ? { size: 2_000, runs: 1, changes: 100 } : { size: 1_000_000, runs: 3, changes: 1_000 };

/**
 * Changes `count` active entries spread over the fixture, as another process would (a CLI command): a space
 * appended to their description, or (undo) taken off again, so the fixture's content is the same afterwards.
 */
function touchEntries(dbPath: string, count: number, undo: boolean): void {
  const sqlite = new Database(dbPath);
  // Statements are prepared (not the connection's cached queries) and finalized here: a connection closed with
  // a live statement lingers open in this process, and the next connection to the file then fails to read it.
  const spanQuery = sqlite.prepare<{ lo: number; hi: number }, []>("SELECT min(rowid) AS lo, max(rowid) AS hi FROM fleet_entries");
  const change = sqlite.prepare<unknown, [number]>(
    undo
      ? "UPDATE fleet_entries SET description = substr(description, 1, length(description) - 1) WHERE rowid = ?"
      : "UPDATE fleet_entries SET description = description || ' ' WHERE rowid = ?",
  );
  try {
    sqlite.exec("PRAGMA busy_timeout = 5000");
    const span = spanQuery.get()!;
    const step = Math.max(1, Math.floor((span.hi - span.lo) / count));
    sqlite.transaction(() => {
      for (let i = 0; i < count; i++) change.run(span.lo + i * step);
    })();
  } finally {
    spanQuery.finalize();
    change.finalize();
    sqlite.close(true);
  }
}

const BINARY = join(ROOT, "dist/tripswitch");

/** Builds dist/tripswitch (npm run build) unless it is newer than every source it compiles. */
export async function ensureBinary(): Promise<void> {
  if (existsSync(BINARY) && !process.env.BENCH_REBUILD) {
    const built = statSync(BINARY).mtimeMs;
    const newest = Math.max(...[...new Bun.Glob("{src,domain,adapters}/**/*.ts").scanSync(ROOT)].map((f) => statSync(join(ROOT, f)).mtimeMs));
    if (built > newest) return;
  }
  console.log("[startup] building dist/tripswitch (npm run build)");
  const proc = tracked(Bun.spawn(["npm", "run", "build"], { cwd: ROOT, stdout: "ignore", stderr: "pipe" }));
  const killer = setTimeout(() => proc.kill("SIGKILL"), 180_000);
  const err = await new Response(proc.stderr).text();
  const code = await proc.exited;
  clearTimeout(killer);
  if (code !== 0) throw new Error(`npm run build failed: ${err}`);
}

function rssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? NaN);
  return kb / 1024;
}

/** One start: launch, poll /readyz every 5 ms, read RSS, run a few searches, read RSS again, stop. */
interface StartResult {
  readyMs: number;
  rssReady: number;
  rssAfter: number;
}

async function startOnce(dbPath: string, command: string[]): Promise<StartResult> {
  const port = freePort();
  const started = performance.now();
  const child = spawnChild([...command, "serve"], { PORT: String(port), HOST: "127.0.0.1", DB_PATH: dbPath, DEMO_DATA: "0", JWT_SECRET: "bench-jwt-secret-that-is-at-least-32-bytes", LOG_LEVEL: "warn" });
  try {
    const base = `http://127.0.0.1:${port}`;
    const readyMs = await waitFor200(`${base}/readyz`, child, 60_000, started, 5);
    const rssReady = rssMb(child.proc.pid);
    const headers = { authorization: `Bearer ${await coreToken(base)}` };
    for (const q of searchQueries(200, VARIANTS[0], 17)) {
      const res = await fetch(`${base}/api/search/fleet?${new URLSearchParams(q)}`, { headers });
      await res.arrayBuffer();
    }
    return { readyMs, rssReady, rssAfter: rssMb(child.proc.pid) };
  } finally {
    await child.stop();
  }
}

export async function benchStartup(options: StartupBenchOptions = DEFAULT_STARTUP_OPTIONS): Promise<Figure[]> {
  // The smoke run exercises this code without the slow compile: it starts `bun src/main.ts` instead.
  if (!SMOKE) await ensureBinary();
  const command = SMOKE ? [process.execPath, join(ROOT, "src/main.ts")] : [BINARY];
  const fixture = await fixtureDatabase(options.size);
  // The empty-fleet floor: the same companies and schema, no fleet entries.
  const emptyPath = join(BENCH_DIR, `startup-empty-${process.pid}.sqlite`);
  removeDatabase(emptyPath);
  copyFileSync(await fixtureDatabase(SMOKE ? 2_000 : 10_000), emptyPath);
  const db = openDatabase(emptyPath);
  migrate(db);
  db.$client.exec("DELETE FROM fleet_entries");
  db.$client.exec("PRAGMA wal_checkpoint(TRUNCATE)");
  db.$client.close();
  const indexFile = `${fixture}.fleet-index`;
  const first: StartResult[] = [];
  const restart: StartResult[] = [];
  const changed: StartResult[] = [];
  const empty: StartResult[] = [];
  try {
    // Warm the page cache once, so every measured start reads the files from memory alike.
    if (!SMOKE) await startOnce(fixture, command);
    for (let r = 0; r < options.runs; r++) {
      rmSync(indexFile, { force: true });
      first.push(await startOnce(fixture, command));
      // The stop saved the index; the next start must find it (else the restart figure would be another first start).
      if (!existsSync(indexFile)) throw new Error(`the service saved no index at stop (${indexFile})`);
      restart.push(await startOnce(fixture, command));
      touchEntries(fixture, options.changes, false);
      try {
        changed.push(await startOnce(fixture, command));
      } finally {
        touchEntries(fixture, options.changes, true);
      }
      empty.push(await startOnce(emptyPath, command));
    }
  } finally {
    removeDatabase(emptyPath);
  }
  const label = options.size.toLocaleString("en-US");
  const kinds = [
    { runs: first, short: "first start", what: "first start (no saved index: built from the database)" },
    { runs: restart, short: "restart", what: "restart (the index saved at the last stop, loaded)" },
    {
      runs: changed,
      short: `restart after ${options.changes.toLocaleString("en-US")} changes`,
      what: `restart after ${options.changes.toLocaleString("en-US")} fleet changes by another process (the saved index loaded, the changed entries re-read)`,
    },
  ];
  const memory = [
    { when: "when ready", of: (r: StartResult) => r.rssReady },
    { when: "after 200 searches", of: (r: StartResult) => r.rssAfter },
  ];
  const figures: Figure[] = kinds.flatMap(({ runs, short, what }): Figure[] => [
    {
      part: "startup",
      name: `compiled binary: launch to /readyz 200 with ${label} fleet entries, ${what}`,
      unit: "ms",
      measured: runs.map((f) => f.readyMs),
      baseline: { name: "same binary, empty fleet", runs: empty.map((e) => e.readyMs) },
      better: "lower",
      target: { value: 2000, text: "≤ 2 s" },
    },
    ...memory.map(({ when, of }): Figure => ({
      part: "startup",
      name: `resident memory ${when} with ${label} entries, ${short}`,
      unit: "MB",
      measured: runs.map(of),
      baseline: { name: "same binary, empty fleet", runs: empty.map(of) },
      better: "lower",
      target: { value: 400, text: "≤ 400 MB" },
    })),
  ]);
  figures.forEach(printFigure);
  return figures;
}

if (import.meta.main) await benchStartup();
