// Load generation on loopback with wrk (Debian package `wrk`), and the processes the benches start.
import { rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { BENCH_DIR } from "./fixtures";
import { tracked } from "./processes";

export const ROOT = resolve(import.meta.dir, "..");

/** The wrk executable, or undefined when it is not installed. */
export function wrkPath(): string | undefined {
  return Bun.which("wrk") ?? undefined;
}

export const WRK_HELP = "wrk is not installed: install it with `sudo apt-get install -y wrk` (Debian/Ubuntu package `wrk`), then run again.";

export interface LoadResult {
  rps: number;
  p99Ms: number;
  requests: number;
  errors: number;
}

/**
 * Runs wrk against `base` for `seconds` with `connections` connections, cycling through `paths`
 * (a Lua script picks them in order) with the given headers. Bounded by wrk's own duration plus a timeout.
 */
export interface WrkOptions {
  seconds: number;
  connections: number;
  threads?: number;
  headers?: Record<string, string>;
  method?: string;
  /** A body made unique per request: `before` + a per-connection-thread counter + `after`. */
  uniqueBody?: { before: string; after: string };
  /**
   * Every request a new path: each path's last query parameter (a number) moved by `step` × (`start` + the
   * request's counter), written with `decimals` decimals. (Each wrk thread counts on its own: use one thread.)
   */
  uniquePath?: { start: number; step: number; decimals: number };
}

export async function wrk(base: string, paths: string[], options: WrkOptions): Promise<LoadResult> {
  const exe = wrkPath();
  if (!exe) throw new Error(WRK_HELP);
  const script = join(BENCH_DIR, `wrk-${process.pid}-${Math.random().toString(36).slice(2)}.lua`);
  const lua = [
    `local paths = {${paths.map((p) => JSON.stringify(p)).join(",")}}`,
    // With uniquePath: each path split into the part before its last number and that number.
    `local heads = {${options.uniquePath ? paths.map((p) => JSON.stringify(p.slice(0, p.lastIndexOf("=") + 1))).join(",") : ""}}`,
    `local values = {${options.uniquePath ? paths.map((p) => String(Number(p.slice(p.lastIndexOf("=") + 1)))).join(",") : ""}}`,
    "local i = 0",
    `wrk.method = ${JSON.stringify(options.method ?? "GET")}`,
    ...Object.entries(options.headers ?? {}).map(([k, v]) => `wrk.headers[${JSON.stringify(k)}] = ${JSON.stringify(v)}`),
    `local run = ${JSON.stringify(`${process.pid}-${Date.now()}`)}`,
    "local tid = 0",
    "local threads = 0",
    "setup = function(thread) threads = threads + 1; thread:set(\"tid\", threads) end",
    "request = function()",
    "  i = i + 1",
    options.uniqueBody
      ? `  return wrk.format(nil, paths[(i % #paths) + 1], nil, ${JSON.stringify(options.uniqueBody.before)} .. run .. "-" .. tostring(tid) .. "-" .. tostring(i) .. ${JSON.stringify(options.uniqueBody.after)})`
      : options.uniquePath
        ? `  local k = (i % #paths) + 1; return wrk.format(nil, heads[k] .. string.format("%.${options.uniquePath.decimals}f", values[k] + (${options.uniquePath.start} + i) * ${options.uniquePath.step}))`
        : "  return wrk.format(nil, paths[(i % #paths) + 1])",
    "end",
    "done = function(summary, latency, requests)",
    '  io.write(string.format("RESULT %d %d %d %f\\n", summary.requests, summary.errors.status + summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.timeout, summary.duration, latency:percentile(99)))',
    "end",
  ].join("\n");
  writeFileSync(script, lua);
  const proc = tracked(Bun.spawn([exe, `-t${options.threads ?? 1}`, `-c${options.connections}`, `-d${options.seconds}s`, "--timeout", "5s", "-s", script, base], { stdout: "pipe", stderr: "pipe" }));
  const killer = setTimeout(() => proc.kill("SIGKILL"), (options.seconds + 15) * 1000);
  const [out, err] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]).finally(() => {
    clearTimeout(killer);
    rmSync(script, { force: true });
  });
  const m = /RESULT (\d+) (\d+) (\d+) ([\d.]+)/.exec(out);
  if (!m) throw new Error(`wrk failed: ${out} ${err}`);
  const [requests, errors, durationUs, p99Us] = [Number(m[1]), Number(m[2]), Number(m[3]), Number(m[4])];
  return { rps: requests / (durationUs / 1e6), p99Ms: p99Us / 1000, requests, errors };
}

/** A child process started by a bench; stop() ends it by its pid (SIGTERM, then SIGKILL). */
export interface Child {
  proc: ReturnType<typeof Bun.spawn>;
  output: () => string;
  stop(): Promise<void>;
}

/** Starts a process, collecting its stderr, and returns once `ready` resolves (bounded by `timeoutMs`). */
export function spawnChild(cmd: string[], env: Record<string, string>): Child {
  const proc = tracked(Bun.spawn(cmd, { cwd: ROOT, env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/tmp", ...env }, stdout: "ignore", stderr: "pipe", stdin: "ignore" }));
  let err = "";
  const decoder = new TextDecoder();
  void (async () => {
    for await (const chunk of proc.stderr as unknown as AsyncIterable<Uint8Array>) err += decoder.decode(chunk);
  })();
  return {
    proc,
    output: () => err,
    async stop() {
      if (proc.exitCode !== null) return;
      proc.kill("SIGTERM");
      const killer = setTimeout(() => proc.kill("SIGKILL"), 10_000);
      await proc.exited;
      clearTimeout(killer);
    },
  };
}

/** Waits until `url` answers 200 or the child exits; bounded by `timeoutMs`. Returns the ms it took from `since`. */
export async function waitFor200(url: string, child: Child, timeoutMs: number, since = performance.now(), pollMs = 5): Promise<number> {
  const deadline = since + timeoutMs;
  while (performance.now() < deadline) {
    if (child.proc.exitCode !== null) throw new Error(`process exited with ${child.proc.exitCode}: ${child.output()}`);
    const status = await fetch(url).then(
      (r) => r.status,
      () => 0,
    );
    if (status === 200) return performance.now() - since;
    await Bun.sleep(pollMs);
  }
  throw new Error(`${url} not ready within ${timeoutMs} ms: ${child.output()}`);
}

/** A free loopback port (bind to 0, read it, release it). */
export function freePort(): number {
  const server = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response("") });
  const port = server.port;
  server.stop(true);
  return port as number;
}
