import { afterAll } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BUN, ROOT } from "../support/process";

// Every benchmark part, with tiny fixtures and sub-second runs, so the benchmark code cannot rot.
// (The real figures come from `npm run bench`; nothing here judges speed.) Two files share this: bench-smoke.test.ts
// (the in-process parts) and bench-smoke-load.test.ts (the parts under wrk), so parallel runs take them apart.
const dir = mkdtempSync(join(tmpdir(), "tripswitch-bench-smoke-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
export const hasWrk = Bun.which("wrk") !== null;

export function startPart(part: string) {
  return Bun.spawn([BUN, join(ROOT, "bench/index.ts"), part], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/tmp", BENCH_SMOKE: "1", BENCH_DIR: dir },
    stdout: "pipe",
    stderr: "pipe",
  });
}

export async function runPart(part: string, limitMs = 50_000): Promise<string> {
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
