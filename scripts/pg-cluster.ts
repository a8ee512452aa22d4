// A throwaway PostgreSQL cluster for tests and local runs, from Debian's `postgresql` package (installed with apt
// when missing and running as root, like scripts/ensure-tools.sh does for the load generator).
//
//   import { startCluster } from "../scripts/pg-cluster";
//   const cluster = await startCluster();   // cluster.url: postgres://…
//   …
//   await cluster.stop();                   // server stopped, directory removed
//
// From the command line, `bun scripts/pg-cluster.ts` prints the URL and stops the cluster on Ctrl-C.
//
// The cluster lives in a new temporary directory (data, unix socket, log) owned by an unprivileged user, since
// postgres refuses to run as root; it listens on 127.0.0.1 at a free port and on a socket in that directory, with
// durability switched off (fsync, full-page writes) because nothing in it must outlive the run — unless `durable`
// (benchmarks that compare commits with SQLite's synchronous=FULL). A guardian
// process stops it and removes the directory if the process that started it dies without calling stop().
// Anything that keeps the cluster from starting throws: a suite that needs PostgreSQL fails, it never skips.
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, chownSync, writeFileSync, chmodSync, statfsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export interface PgCluster {
  /** postgres://user:password@127.0.0.1:port/database */
  readonly url: string;
  /** The same database through the unix socket in the cluster's directory. */
  readonly socketUrl: string;
  readonly port: number;
  /** The cluster's temporary directory: data/, the socket and postgres.log. */
  readonly dir: string;
  /** The postmaster's process id (from postmaster.pid). */
  readonly pid: number;
  /** Stops the server and removes the directory. Safe to call more than once. */
  stop(): Promise<void>;
}

export interface ClusterOptions {
  /** Directory holding initdb, pg_ctl and postgres (default: $PG_BINDIR, else found automatically). */
  binDir?: string;
  /** Database created for the caller (default "tripswitch"). */
  database?: string;
  /** The server's connection limit (default 200). */
  maxConnections?: number;
  /**
   * Keep PostgreSQL's durability on (fsync, full-page writes, synchronous commit): a commit is acknowledged once
   * it is on disk, as in production. Default off: nothing in a throwaway cluster must outlive the run.
   */
  durable?: boolean;
  /**
   * Keep the cluster's files in memory (/dev/shm) when it has room for `inMemory` bytes, else in the temporary
   * directory: the suite copies a database per test, and a copy in memory takes a tenth of the time it takes on disk.
   */
  inMemory?: number;
  /**
   * More server settings, `name=value` each (passed as `-c name=value`), e.g. `shared_preload_libraries=pg_stat_statements`
   * for a benchmark that reads what each statement cost.
   */
  settings?: string[];
}

/** /dev/shm when it is there with `bytes` free, else the system's temporary directory. */
function clusterParent(bytes: number | undefined): string {
  if (bytes) {
    try {
      const fs = statfsSync("/dev/shm");
      if (fs.bavail * fs.bsize >= bytes) return "/dev/shm";
    } catch {}
  }
  return tmpdir();
}

const USER = "tripswitch";

/** Starts a cluster; throws with the reason (and postgres's log) when it cannot. */
export async function startCluster(options: ClusterOptions = {}): Promise<PgCluster> {
  const binDir = options.binDir ?? process.env.PG_BINDIR ?? findBinDir() ?? (installPostgres(), findBinDir());
  if (!binDir) throw new Error("PostgreSQL not found: install Debian's `postgresql` package (apt-get install postgresql), or run as root so it is installed");
  for (const tool of ["initdb", "pg_ctl", "postgres"]) {
    if (!existsSync(join(binDir, tool))) throw new Error(`PostgreSQL tool missing: ${join(binDir, tool)}`);
  }
  const runAs = serverUser();
  const dir = mkdtempSync(join(clusterParent(options.durable ? undefined : options.inMemory), "tripswitch-pg-"));
  const data = join(dir, "data");
  const log = join(dir, "postgres.log");
  const password = crypto.randomUUID().replaceAll("-", "");
  let guardian: ReturnType<typeof Bun.spawn> | undefined;
  try {
    writeFileSync(join(dir, "pwfile"), `${password}\n`);
    chmodSync(dir, 0o700);
    if (runAs) {
      chownSync(dir, runAs.uid, runAs.gid);
      chownSync(join(dir, "pwfile"), runAs.uid, runAs.gid);
    }
    run(runAs, [join(binDir, "initdb"), "-D", data, "-U", USER, `--pwfile=${join(dir, "pwfile")}`, "--auth=scram-sha-256", "-E", "UTF8", "--locale=C", "--no-sync", "--no-instructions"], "initdb");
    rmSync(join(dir, "pwfile"));
    const settings = ["-c listen_addresses=127.0.0.1", `-c unix_socket_directories=${dir}`, ...(options.durable ? ["-c fsync=on", "-c full_page_writes=on", "-c synchronous_commit=on"] : ["-c fsync=off", "-c full_page_writes=off", "-c synchronous_commit=off"]), `-c max_connections=${options.maxConnections ?? 200}`, "-c shared_buffers=32MB", ...(options.settings ?? []).map((s) => `-c ${s}`)];
    let port = 0;
    for (let attempt = 1; ; attempt++) {
      port = freePort();
      const started = run(runAs, [join(binDir, "pg_ctl"), "-D", data, "-l", log, "-w", "-t", "60", "-o", [`-p ${port}`, ...settings].join(" "), "start"], "pg_ctl start", attempt < 3);
      if (started) break;
      // Another process took the port between the probe and the start: try another one.
    }
    const pid = Number(readFileSync(join(data, "postmaster.pid"), "utf8").split("\n")[0]);
    guardian = startGuardian(runAs, join(binDir, "pg_ctl"), data, dir);
    const database = options.database ?? "tripswitch";
    const url = `postgres://${USER}:${password}@127.0.0.1:${port}/${database}`;
    await createDatabase(`postgres://${USER}:${password}@127.0.0.1:${port}/postgres`, database);
    let stopped: Promise<void> | undefined;
    const stop = () =>
      (stopped ??= (async () => {
        untrack(stop);
        guardian?.kill();
        run(runAs, [join(binDir, "pg_ctl"), "-D", data, "-m", "immediate", "-w", "-t", "30", "stop"], "pg_ctl stop", true);
        rmSync(dir, { recursive: true, force: true });
      })());
    track(stop);
    return { url, socketUrl: `${url}?path=${encodeURIComponent(dir)}`, port, dir, pid, stop };
  } catch (e) {
    guardian?.kill();
    const tail = existsSync(log) ? `\n--- postgres.log ---\n${readFileSync(log, "utf8").slice(-2000)}` : "";
    run(runAs, [join(binDir, "pg_ctl"), "-D", data, "-m", "immediate", "-w", "stop"], "pg_ctl stop", true);
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`PostgreSQL could not be started: ${(e as Error).message}${tail}`);
  }
}

/** The newest /usr/lib/postgresql/<version>/bin, else the directory of an initdb on the PATH. */
export function findBinDir(): string | undefined {
  const root = "/usr/lib/postgresql";
  if (existsSync(root)) {
    const versions = readdirSync(root)
      .filter((v) => /^\d+(\.\d+)?$/.test(v) && existsSync(join(root, v, "bin", "initdb")))
      .sort((a, b) => Number(b) - Number(a));
    if (versions.length) return join(root, versions[0], "bin");
  }
  const initdb = Bun.which("initdb") ?? Bun.which("initdb", { PATH: "/usr/local/bin:/usr/bin" });
  if (!initdb) return undefined;
  const real = Bun.spawnSync(["readlink", "-f", initdb]).stdout.toString().trim() || initdb;
  return join(real, "..");
}

function installPostgres(): void {
  if (process.getuid?.() !== 0 || !Bun.which("apt-get")) return;
  console.error("installing postgresql (Debian package) for the PostgreSQL tests…");
  // postgresql-common first: its createcluster.conf then tells the server package not to create and start a
  // system cluster on port 5432 that nothing here uses.
  aptInstall("postgresql-common");
  const conf = "/etc/postgresql-common/createcluster.conf";
  if (existsSync(conf)) writeFileSync(conf, readFileSync(conf, "utf8").replace(/^#?\s*create_main_cluster\s*=.*$/m, "create_main_cluster = false"));
  aptInstall("postgresql");
}

function aptInstall(pkg: string): void {
  const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" };
  const install = () => Bun.spawnSync(["timeout", "300", "apt-get", "install", "-y", "--no-install-recommends", pkg], { stdout: "ignore", stderr: "pipe", stdin: "ignore", env });
  if (install().exitCode === 0) return;
  Bun.spawnSync(["timeout", "120", "apt-get", "update"], { stdout: "ignore", stderr: "ignore", stdin: "ignore" });
  const second = install();
  if (second.exitCode !== 0) throw new Error(`apt-get install ${pkg} failed: ${second.stderr.toString().slice(-500)}`);
}

interface RunAs {
  name: string;
  uid: number;
  gid: number;
}

/** postgres refuses to run as root: as root, the server runs as Debian's `postgres` user, else `nobody`. */
function serverUser(): RunAs | undefined {
  if (process.getuid?.() !== 0) return undefined;
  for (const name of ["postgres", "nobody"]) {
    const entry = Bun.spawnSync(["getent", "passwd", name]).stdout.toString().trim();
    if (!entry) continue;
    const [, , uid, gid] = entry.split(":");
    return { name, uid: Number(uid), gid: Number(gid) };
  }
  throw new Error("running as root and neither a `postgres` nor a `nobody` user exists to run the server as");
}

/** Runs a tool as the server's user; throws on failure unless `tolerate`, then returns whether it worked. */
function run(runAs: RunAs | undefined, argv: string[], what: string, tolerate = false): boolean {
  const cmd = runAs ? ["runuser", "-u", runAs.name, "--", ...argv] : argv;
  const result = Bun.spawnSync(cmd, { stdout: "pipe", stderr: "pipe", stdin: "ignore", env: { ...process.env, LC_ALL: "C" } });
  if (result.exitCode === 0) return true;
  if (tolerate) return false;
  throw new Error(`${what} exited with ${result.exitCode}: ${(result.stderr.toString() + result.stdout.toString()).trim().slice(-1500)}`);
}

function freePort(): number {
  const probe = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
  const port = probe.port;
  probe.stop(true);
  return port;
}

async function createDatabase(adminUrl: string, database: string): Promise<void> {
  if (!/^[a-z_][a-z0-9_]*$/.test(database)) throw new Error(`database name ${JSON.stringify(database)}: lower-case letters, digits and _ only`);
  const admin = new Bun.SQL(adminUrl, { max: 1 });
  try {
    if (database !== "postgres") await admin.unsafe(`CREATE DATABASE ${database}`);
  } finally {
    await admin.close();
  }
}

/**
 * A detached shell that waits for this process to end and then stops the cluster and removes its directory,
 * for when this process is killed (SIGKILL, a crash) before it could call stop(). stop() kills it first.
 */
function startGuardian(runAs: RunAs | undefined, pgCtl: string, data: string, dir: string): ReturnType<typeof Bun.spawn> {
  const stopCmd = `${runAs ? `runuser -u ${runAs.name} -- ` : ""}"$2" -D "$3" -m immediate -w -t 30 stop`;
  const script = `while kill -0 "$1" 2>/dev/null; do sleep 1; done; ${stopCmd} >/dev/null 2>&1; rm -rf "$4"`;
  const guardian = Bun.spawn(["sh", "-c", script, "pg-cluster-guardian", String(process.pid), pgCtl, data, dir], { stdio: ["ignore", "ignore", "ignore"], detached: true });
  guardian.unref();
  return guardian;
}

// Clusters still running when the process exits or is interrupted are stopped.
const live = new Set<() => Promise<void>>();
let hooked = false;
function track(stop: () => Promise<void>): void {
  live.add(stop);
  if (hooked) return;
  hooked = true;
  process.on("exit", () => {
    for (const s of [...live]) void s();
  });
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) {
    process.once(signal, async () => {
      await Promise.all([...live].map((s) => s()));
      process.exit(signal === "SIGINT" ? 130 : 143);
    });
  }
}
function untrack(stop: () => Promise<void>): void {
  live.delete(stop);
}

if (import.meta.main) {
  const cluster = await startCluster();
  console.log(cluster.url);
  console.error(`PostgreSQL ${cluster.dir} (pid ${cluster.pid}); Ctrl-C stops it and removes the directory`);
  // A timer keeps the process waiting for the signal (a never-settling promise alone makes Bun spin).
  setInterval(() => {}, 1 << 30);
}
