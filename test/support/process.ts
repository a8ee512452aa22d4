import { copyFileSync, existsSync, mkdtempSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { madeOnce } from "./run-cache";

export const ROOT = resolve(import.meta.dir, "../..");
export const BUN = process.execPath;

/**
 * The PATH of a machine set up as the README says (Node.js and npm; Bun comes from npm, run as `npx bun`): this
 * process's PATH without the directories that hold a `bun` (node_modules/.bin, which `npx bun test` puts first).
 */
export const READER_PATH = (process.env.PATH ?? "")
  .split(":")
  .filter((dir) => dir && !existsSync(join(dir, "bun")))
  .join(":");

export function tempDir(prefix = "tripswitch-"): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

/** Runs the CLI to completion (bounded by `timeoutMs`). */
export async function runCli(args: string[], env: Record<string, string>, opts: { cwd?: string; command?: string[]; timeoutMs?: number } = {}) {
  const proc = Bun.spawn([...(opts.command ?? [BUN, join(ROOT, "src/main.ts")]), ...args], {
    cwd: opts.cwd ?? ROOT,
    // Test partners listen on loopback: the outbound guard is lifted explicitly (a test may set "0").
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/tmp", LOG_LEVEL: "silent", OUTBOUND_ALLOW_PRIVATE: "1", ...env },
    stdout: "pipe",
    stderr: "pipe",
    stdin: "ignore",
  });
  const timer = setTimeout(() => proc.kill("SIGKILL"), opts.timeoutMs ?? 30_000);
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  clearTimeout(timer);
  return { code, stdout, stderr };
}

/** A running server process; `stop()` sends SIGTERM and waits (then SIGKILL if it hangs). */
export interface RunningServer {
  port: number;
  platformPort?: number;
  base: string;
  proc: ReturnType<typeof Bun.spawn>;
  stderr: () => string;
  /** What the process wrote on stdout (the JSON logs); empty unless started with `captureStdout`. */
  stdout: () => string;
  stop(): Promise<number>;
}

/**
 * Starts `serve` (PORT=0 unless given) and waits until /readyz answers 200, reading the port from the
 * start-up line on stderr. Bounded by `timeoutMs`.
 */
/**
 * What every service a test starts runs with unless the test says otherwise: any port on loopback, quiet, private
 * delivery targets allowed (the receivers are on 127.0.0.1), passwords hashed at the test cost (outside production),
 * the city gazetteer read at the first city lookup rather than at every start (~1 s of CPU each; most never look one up).
 */
const SERVER_DEFAULTS = {
  PATH: process.env.PATH ?? "",
  HOME: process.env.HOME ?? "/tmp",
  PORT: "0",
  HOST: "127.0.0.1",
  LOG_LEVEL: "silent",
  OUTBOUND_ALLOW_PRIVATE: "1",
  GAZETTEER_WARM: "0",
};

export async function startServer(
  env: Record<string, string>,
  opts: { cwd?: string; command?: string[]; args?: string[]; timeoutMs?: number; captureStdout?: boolean } = {},
): Promise<RunningServer> {
  const proc = Bun.spawn([...(opts.command ?? [BUN, join(ROOT, "src/main.ts")]), ...(opts.args ?? ["serve"])], {
    cwd: opts.cwd ?? ROOT,
    env: { ...SERVER_DEFAULTS, ...(env.NODE_ENV === "production" ? {} : { PASSWORD_HASH_COST: "test" }), ...env },
    stdout: opts.captureStdout ? "pipe" : "ignore",
    stderr: "pipe",
    stdin: "ignore",
  });
  let err = "";
  let out = "";
  const decoder = new TextDecoder();
  (async () => {
    for await (const chunk of proc.stderr as unknown as AsyncIterable<Uint8Array>) err += decoder.decode(chunk);
  })();
  if (opts.captureStdout) {
    const outDecoder = new TextDecoder();
    (async () => {
      for await (const chunk of proc.stdout as unknown as AsyncIterable<Uint8Array>) out += outDecoder.decode(chunk, { stream: true });
    })();
  }
  const deadline = Date.now() + (opts.timeoutMs ?? 20_000);
  let ports: number[] = [];
  while (Date.now() < deadline) {
    const m = /listening on [^:]+:(\d+)(?: and (\d+))?/.exec(err);
    if (m) {
      ports = [Number(m[1]), ...(m[2] ? [Number(m[2])] : [])];
      const ready = await fetch(`http://127.0.0.1:${ports[0]}/readyz`).then((r) => r.status, () => 0);
      if (ready === 200) break;
    }
    if (proc.exitCode !== null) throw new Error(`server exited with ${proc.exitCode}: ${err}`);
    await Bun.sleep(50);
  }
  if (ports.length === 0) {
    proc.kill("SIGKILL");
    throw new Error(`server did not start in time: ${err}`);
  }
  return {
    port: ports[0],
    platformPort: ports[1],
    base: `http://127.0.0.1:${ports[0]}`,
    proc,
    stderr: () => err,
    stdout: () => out,
    async stop() {
      proc.kill("SIGTERM");
      const killer = setTimeout(() => proc.kill("SIGKILL"), 10_000);
      const code = await proc.exited;
      clearTimeout(killer);
      return code;
    },
  };
}

/**
 * A database at `dbPath` holding the demo data (the CLI's seed-demo), after the CLI `commands` ran on it (each must
 * exit 0), with the keys the CLI keeps beside it (.jwt-secret, .secrets-key). The CLI seeds and runs the commands
 * once a run for each list of commands (about 3 s of CPU each time, test/support/run-cache.ts); each caller gets its
 * own copy.
 */
export async function copyDemoDatabase(dbPath: string, commands: string[][] = []): Promise<void> {
  const seeded = await madeOnce(`demo-db-${Bun.hash(JSON.stringify(commands)).toString(36)}`, async (dir) => {
    const env = { DB_PATH: join(dir, "db.sqlite"), DEMO_DATA: "0", GAZETTEER_WARM: "1" };
    for (const command of [["seed-demo"], ...commands]) {
      const r = await runCli(command, env, { timeoutMs: 120_000 });
      if (r.code !== 0) throw new Error(`${command.join(" ")} exited with ${r.code}: ${r.stderr}`);
    }
  });
  // The database with whatever the CLI left beside it under its name (a WAL, a saved fleet index), and the keys.
  for (const entry of readdirSync(seeded))
    copyFileSync(join(seeded, entry), entry.startsWith("db.sqlite") ? dbPath + entry.slice("db.sqlite".length) : join(dirname(dbPath), entry));
}

export async function postJson(url: string, body: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(url, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(body) });
  const text = await res.text();
  let json: any = text;
  try {
    json = JSON.parse(text);
  } catch {}
  return { status: res.status, body: json, headers: res.headers };
}

/** A company registered on a running service, with its platform token and its core JWT. */
export interface RegisteredCompany {
  netid: string;
  token: string;
  jwt: string;
}

/** Registers `netid` through the service's own HTTP API and signs it in on both surfaces. */
export async function registerCompany(s: RunningServer, netid: string, coType: "CO" | "IO"): Promise<RegisteredCompany> {
  const password = "correct horse battery staple";
  const res = await postJson(`${s.base}/api/company/register`, {
    name: `${netid} Ltd`,
    netid,
    mainEmail: `ops@${netid.toLowerCase()}.example`,
    password,
    confirmPassword: password,
    mainPhone: `+1212555${String(1000 + Math.floor(Math.random() * 9000)).slice(-4)}`,
    coType,
  });
  if (res.status !== 200) throw new Error(`registering ${netid}: ${res.status} ${JSON.stringify(res.body)}`);
  const token = await postJson(`${s.base}/Platform.svc/getToken2`, { uid: netid, pw: password });
  const jwt = await postJson(`${s.base}/api/token`, { uid: netid, pw: password });
  return { netid, token: token.body as string, jwt: jwt.body.token as string };
}
