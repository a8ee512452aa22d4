// Runs `bun test` (forwarding arguments), streams its output, then prints the line CI reads:
// "N passed, N failed" — and exits non-zero when any run failed, or when a run passed nothing.
// Component tests start servers, build the binary and run the benchmark parts: they get 60 s each (bun's default
// is 5 s; bunfig.toml has no setting for it), unless the caller passes its own --timeout.
// Without arguments (the whole suite) two runs go at once, since most of a test's time is spent waiting on servers,
// sockets and child processes rather than on a core: every file on SQLite, spread over three worker processes (slowest
// files first, by test/timings.json), and beside it the HTTP component suite on PostgreSQL over two more (each with
// a throwaway cluster of its own): run in one process it took ~450 s of wall time alone, while the SQLite run
// finished sooner. The PostgreSQL run's output follows the SQLite run's; then the files that time the service (ALONE)
// run on their own, and the line counts all three.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const args = process.argv.slice(2);
const timeout = args.some((a) => a.startsWith("--timeout")) ? [] : ["--timeout", "60000"];

/**
 * The component suite run again on PostgreSQL: every test that drives the service through its routes. Tests of
 * SQLite's own machinery live in test/adapters/sqlite/ and run on SQLite only, among them:
 * - send-trip-concurrency.test.ts: SQLite's write paths (group commit seen from a second SQLite connection, the booking writer thread, PRAGMA data_version);
 * - announce-booking-writer.test.ts: the announcements committed by SQLite's booking writer thread (the own-connection case runs here).
 */
export const POSTGRES_SUITE = [
  "test/adapters/http",
  "test/adapters/delivery",
  "test/adapters/sandbox.test.ts",
  "test/reliability/authorization-matrix.test.ts",
  "test/reliability/hostile-input.test.ts",
  "test/reliability/input-caps.test.ts",
  "test/smoke.test.ts",
  "test/src/typed-client.test.ts",
];

/**
 * Files of POSTGRES_SUITE that reach no database the run chooses (units of code that stores nothing; the docs UI's
 * browser test serves its own SQLite file): on PostgreSQL they would repeat their SQLite run exactly, so the
 * PostgreSQL run leaves them out. test/suite-split.test.ts checks that none reaches the harness or the test cluster.
 */
export const SAME_ON_POSTGRES = [
  "test/adapters/http/docs.browser.test.ts",
  "test/adapters/http/access-log.test.ts",
  "test/adapters/http/client-address.test.ts",
  "test/adapters/http/platform-paths.test.ts",
  "test/adapters/delivery/outbound-guard.test.ts",
  "test/adapters/delivery/target-gate.test.ts",
];

/**
 * Files that time the service against a bound of milliseconds: they run on SQLite after the two runs, with nothing
 * else of the suite beside them.
 */
export const ALONE = ["test/reliability/booking-growth.test.ts"];

/** Files run in parallel worker processes keep one global per worker, as a serial run keeps one for all its files. */
const PARALLEL = (workers: number) => [`--parallel=${workers}`, "--no-isolate", "--timings=test/timings.json", ...ALONE.map((f) => `--path-ignore-patterns=${f}`)];

/** One `bun test` run; its output goes to `out` as it comes, or is kept and printed whole once `printAfter` resolves. */
async function run(testArgs: string[], env: Record<string, string>, printAfter?: Promise<unknown>): Promise<{ code: number; passed: number; failed: number; seconds: number; failures: string[] }> {
  const started = performance.now();
  const proc = Bun.spawn([process.execPath, "test", ...timeout, ...testArgs], {
    stdout: "pipe",
    stderr: "pipe",
    stdin: "ignore",
    env: { ...process.env, LOG_LEVEL: process.env.LOG_LEVEL ?? "silent", ...env },
  });
  let tail = "";
  const held: Array<[NodeJS.WriteStream, string]> = [];
  const failures: string[] = [];
  async function pump(stream: ReadableStream<Uint8Array>, out: NodeJS.WriteStream) {
    const decoder = new TextDecoder();
    const lines = new FailureLines(failures);
    for await (const chunk of stream as unknown as AsyncIterable<Uint8Array>) {
      const text = decoder.decode(chunk, { stream: true });
      if (printAfter) held.push([out, text]);
      else out.write(text);
      tail = (tail + text).slice(-4096);
      lines.read(text);
    }
  }
  await Promise.all([pump(proc.stdout, process.stdout), pump(proc.stderr, process.stderr)]);
  const code = await proc.exited;
  const seconds = (performance.now() - started) / 1000;
  if (printAfter) {
    await printAfter;
    for (const [out, text] of held) out.write(text);
  }
  const count = (word: string) => Number(/^\s*(\d+) (?:pass|fail)\s*$/m.exec(tail.split("\n").filter((l) => new RegExp(`^\\s*\\d+ ${word}\\s*$`).test(l)).pop() ?? "")?.[1] ?? 0);
  return { code, passed: count("pass"), failed: count("fail"), seconds, failures };
}

/**
 * Keeps each failed test's "(fail)" line with what bun printed before it (the error and its diff), so the end of a
 * long run shows what failed: a CI log is often read from its tail only. At most MAX_SHOWN failures are kept whole.
 */
export class FailureLines {
  static readonly BEFORE = 40;
  static readonly MAX_SHOWN = 5;
  private recent: string[] = [];
  private partial = "";
  constructor(private readonly failures: string[]) {}
  read(text: string): void {
    const lines = (this.partial + text).split("\n");
    this.partial = lines.pop() ?? "";
    for (const line of lines) {
      if (/^\(fail\) /.test(line)) {
        // bun lists the failures again at the end of a run ("N tests failed:"): a line already kept is not kept twice.
        const name = line.replace(/ \[[\d.]+m?s\]$/, "");
        if (!this.failures.some((f) => f.slice(f.lastIndexOf("\n") + 1).replace(/ \[[\d.]+m?s\]$/, "") === name)) {
          const shown = this.failures.length < FailureLines.MAX_SHOWN ? this.recent.join("\n") + "\n" : "";
          this.failures.push(shown + line);
        }
        this.recent = [];
      } else {
        this.recent.push(line);
        if (this.recent.length > FailureLines.BEFORE) this.recent.shift();
      }
    }
  }
}

if (import.meta.main) {
  // The Debian packages the suite drives (wrk, chromium), installed when missing and possible; scripts/pg-cluster.ts
  // installs postgresql the first time a test needs it.
  if (process.env.TRIPSWITCH_SKIP_TOOLS !== "1") Bun.spawnSync(["bash", `${import.meta.dir}/ensure-tools.sh`], { stdout: "inherit", stderr: "inherit", stdin: "ignore" });
  // What the run makes once and its test processes share (test/support/run-cache.ts), removed when the run ends.
  const runDir = mkdtempSync(join(tmpdir(), "tripswitch-test-run-"));
  process.on("exit", () => rmSync(runDir, { recursive: true, force: true }));
  const shared = { TRIPSWITCH_TEST_RUN_DIR: runDir };
  let runs;
  if (args.length > 0) runs = [await run(args, shared)];
  else {
    const sqlite = run(PARALLEL(3), shared);
    const postgres = run([...PARALLEL(2), ...POSTGRES_SUITE, ...SAME_ON_POSTGRES.map((f) => `--path-ignore-patterns=${f}`)], { ...shared, TRIPSWITCH_TEST_DB: "postgres" }, sqlite.then(() => console.log("\nThe HTTP component suite again, on PostgreSQL:\n")));
    runs = await Promise.all([sqlite, postgres]);
    console.log("\nAlone, the files that time the service:\n");
    runs.push(await run(ALONE, shared));
    // Where the wall time went (the first two runs share the machine): what to look at when the suite grows slower.
    const [onSqlite, onPostgres, alone] = runs.map((r) => `${r.seconds.toFixed(0)} s`);
    console.log(`\nwall time: SQLite ${onSqlite}, PostgreSQL ${onPostgres} (at once), then alone ${alone}`);
  }
  const failures = runs.flatMap((r) => r.failures);
  if (failures.length > 0) console.log(`\nWhat failed (${failures.length}), each with what bun printed before it:\n\n${failures.join("\n\n")}\n`);
  const passed = runs.reduce((n, r) => n + r.passed, 0);
  const failed = runs.reduce((n, r) => n + r.failed, 0);
  console.log(`${passed} passed, ${failed} failed`);
  const code = runs.find((r) => r.code !== 0)?.code ?? 0;
  process.exit(code === 0 && runs.some((r) => r.passed === 0) ? 1 : code);
}
