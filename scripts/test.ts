export {};
// Runs `bun test` (forwarding arguments), streams its output, then prints the line CI reads:
// "N passed, N failed" — and exits with bun's own exit code.
// Component tests start servers, build the binary and run the benchmark parts: they get 60 s each (bun's default
// is 5 s; bunfig.toml has no setting for it), unless the caller passes its own --timeout.
// Without arguments (the whole suite) the HTTP component suite then runs a second time with every harness on
// PostgreSQL (a throwaway cluster), and the line counts both runs.
const args = process.argv.slice(2);
// The Debian packages the suite drives (wrk, chromium), installed when missing and possible; scripts/pg-cluster.ts
// installs postgresql the first time a test needs it.
if (process.env.TRIPSWITCH_SKIP_TOOLS !== "1") Bun.spawnSync(["bash", `${import.meta.dir}/ensure-tools.sh`], { stdout: "inherit", stderr: "inherit", stdin: "ignore" });
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

async function run(testArgs: string[], env: Record<string, string>): Promise<{ code: number; passed: number; failed: number }> {
  const proc = Bun.spawn([process.execPath, "test", ...timeout, ...testArgs], {
    stdout: "pipe",
    stderr: "pipe",
    stdin: "ignore",
    env: { ...process.env, LOG_LEVEL: process.env.LOG_LEVEL ?? "silent", ...env },
  });
  let tail = "";
  async function pump(stream: ReadableStream<Uint8Array>, out: NodeJS.WriteStream) {
    const decoder = new TextDecoder();
    for await (const chunk of stream as unknown as AsyncIterable<Uint8Array>) {
      const text = decoder.decode(chunk, { stream: true });
      out.write(text);
      tail = (tail + text).slice(-4096);
    }
  }
  await Promise.all([pump(proc.stdout, process.stdout), pump(proc.stderr, process.stderr)]);
  const code = await proc.exited;
  const count = (word: string) => Number(/^\s*(\d+) (?:pass|fail)\s*$/m.exec(tail.split("\n").filter((l) => new RegExp(`^\\s*\\d+ ${word}\\s*$`).test(l)).pop() ?? "")?.[1] ?? 0);
  return { code, passed: count("pass"), failed: count("fail") };
}

if (import.meta.main) {
  const runs = [await run(args, {})];
  if (args.length === 0) {
    console.log("\nThe HTTP component suite again, on PostgreSQL:\n");
    runs.push(await run(POSTGRES_SUITE, { TRIPSWITCH_TEST_DB: "postgres" }));
  }
  const passed = runs.reduce((n, r) => n + r.passed, 0);
  const failed = runs.reduce((n, r) => n + r.failed, 0);
  console.log(`${passed} passed, ${failed} failed`);
  const code = runs.find((r) => r.code !== 0)?.code ?? 0;
  process.exit(code === 0 && runs.some((r) => r.passed === 0) ? 1 : code);
}
