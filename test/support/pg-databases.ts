// Fresh PostgreSQL databases for the component suite's PostgreSQL run (TRIPSWITCH_TEST_DB=postgres): one throwaway
// cluster per test process, a migrated template, and databases copied from it ahead of need, so a harness takes
// one synchronously; and on any run, an empty database of its own for a file that needs PostgreSQL (startDatabase),
// on the same cluster. PostgreSQL that cannot start fails the run; it never skips.
import { SQL } from "bun";
import { migrate } from "../../adapters/postgres/db";
import { startCluster, type PgCluster } from "../../scripts/pg-cluster";

/** Whether this test process runs the service on PostgreSQL. */
export const ON_POSTGRES = process.env.TRIPSWITCH_TEST_DB === "postgres";

/** Databases kept ready; a harness takes one and another is copied in the background. */
const AHEAD = 24;

let cluster: PgCluster | undefined;
let starting: Promise<PgCluster> | undefined;
let admin: SQL | undefined;
const ready: string[] = [];
let made = 0;
let refilling: Promise<void> | undefined;
let failure: unknown;
let copying = 0;

function urlOf(name: string): string {
  const url = new URL(cluster!.url);
  url.pathname = `/${name}`;
  return url.toString();
}

/**
 * One database copied from the template. FILE_COPY copies the template's files (with two checkpoints, cheap with
 * fsync off) where the default WAL_LOG writes every page of it through the WAL: about half the cluster's CPU and a
 * third of the wait for each of the run's thousand copies (PostgreSQL 15, measured on the 2-core machine).
 */
async function copyOne(): Promise<void> {
  const name = `t${++made}`;
  await admin!.unsafe(`CREATE DATABASE ${name} TEMPLATE tripswitch_template STRATEGY FILE_COPY`);
  ready.push(urlOf(name));
}

/** Copies made at once: a copy waits mostly on the cluster's file work, so three at a time nearly halve the wait. */
const COPIERS = 3;

function refill(): void {
  refilling ??= (async () => {
    try {
      const copier = async () => {
        while (ready.length + copying < AHEAD) {
          copying++;
          try {
            await copyOne();
          } finally {
            copying--;
          }
        }
      };
      await Promise.all(Array.from({ length: COPIERS }, copier));
    } catch (error) {
      failure = error;
    } finally {
      refilling = undefined;
    }
  })();
}

/** This test process's throwaway cluster, started on first use and stopped when the process ends. */
function processCluster(): Promise<PgCluster> {
  starting ??= (async () => {
    // In memory when /dev/shm has room for the suite's databases (8.8 MB each, about a thousand in a run).
    cluster = await startCluster({ maxConnections: 1000, inMemory: 12 * 2 ** 30 });
    admin = new SQL(cluster.url, { max: COPIERS });
    process.once("beforeExit", () => void stopPostgres());
    return cluster;
  })();
  return starting;
}

/** Starts the cluster and copies the first databases; the preload awaits it once per test process. */
export async function preparePostgres(): Promise<void> {
  await processCluster();
  await admin!.unsafe("CREATE DATABASE tripswitch_template");
  const template = new SQL(urlOf("tripswitch_template"), { max: 1 });
  await migrate(template);
  await template.close();
  refill();
  await databasesReady();
}

/** A database of its own for a test file: its URL, and `stop()`, which drops it (close its connections first). */
export interface TestDatabase {
  readonly url: string;
  stop(): Promise<void>;
}

let own = 0;
/**
 * A new, empty database (not migrated) on this process's cluster, for a file that needs PostgreSQL of its own (its
 * own instances, pools or CLI runs): a database costs a fraction of a second where starting a cluster costs seconds.
 */
export async function startDatabase(): Promise<TestDatabase> {
  await processCluster();
  const name = `own${++own}`;
  await admin!.unsafe(`CREATE DATABASE ${name}`);
  let dropped = false;
  return {
    url: urlOf(name),
    async stop() {
      if (dropped || !admin) return;
      dropped = true;
      await admin.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    },
  };
}

/** A new, migrated, empty database (its URL). */
export function takeDatabase(): string {
  if (failure) throw failure;
  const url = ready.shift();
  refill();
  if (!url) throw new Error("no PostgreSQL test database ready: the suite created harnesses faster than databases are copied");
  return url;
}

/**
 * Waits until at least `count` databases are ready to take. The preload calls it before every test, so that a file
 * of many quick tests (each with a harness of its own) waits for copies on a slow machine instead of running dry.
 */
export async function databasesAvailable(count = 2): Promise<void> {
  while (ready.length < count) {
    if (failure) throw failure;
    refill();
    await Bun.sleep(5);
  }
}

/** Waits until the databases kept ahead are there (a file that creates many harnesses at once calls it first). */
export async function databasesReady(): Promise<void> {
  while (refilling) await refilling;
  if (failure) throw failure;
}

export async function stopPostgres(): Promise<void> {
  const [a, c] = [admin, cluster];
  admin = cluster = starting = undefined;
  await a?.close();
  await c?.stop();
}
