// Fresh PostgreSQL databases for the component suite's PostgreSQL run (TRIPSWITCH_TEST_DB=postgres): one throwaway
// cluster per test process, a migrated template, and databases copied from it ahead of need, so a harness takes
// one synchronously. PostgreSQL that cannot start fails the run; it never skips.
import { SQL } from "bun";
import { migrate } from "../../adapters/postgres/db";
import { startCluster, type PgCluster } from "../../scripts/pg-cluster";

/** Whether this test process runs the service on PostgreSQL. */
export const ON_POSTGRES = process.env.TRIPSWITCH_TEST_DB === "postgres";

/** Databases kept ready; a harness takes one and another is copied in the background. */
const AHEAD = 24;

let cluster: PgCluster | undefined;
let admin: SQL | undefined;
const ready: string[] = [];
let made = 0;
let refilling: Promise<void> | undefined;
let failure: unknown;

function urlOf(name: string): string {
  const url = new URL(cluster!.url);
  url.pathname = `/${name}`;
  return url.toString();
}

async function copyOne(): Promise<void> {
  const name = `t${++made}`;
  await admin!.unsafe(`CREATE DATABASE ${name} TEMPLATE tripswitch_template`);
  ready.push(urlOf(name));
}

function refill(): void {
  refilling ??= (async () => {
    try {
      while (ready.length < AHEAD) await copyOne();
    } catch (error) {
      failure = error;
    } finally {
      refilling = undefined;
    }
  })();
}

/** Starts the cluster and copies the first databases; the preload awaits it once per test process. */
export async function preparePostgres(): Promise<void> {
  cluster = await startCluster({ maxConnections: 1000 });
  admin = new SQL(cluster.url, { max: 1 });
  await admin.unsafe("CREATE DATABASE tripswitch_template");
  const template = new SQL(urlOf("tripswitch_template"), { max: 1 });
  await migrate(template);
  await template.close();
  while (ready.length < AHEAD) await copyOne();
  process.once("beforeExit", () => void stopPostgres());
}

/** A new, migrated, empty database (its URL). */
export function takeDatabase(): string {
  if (failure) throw failure;
  const url = ready.shift();
  refill();
  if (!url) throw new Error("no PostgreSQL test database ready: the suite created harnesses faster than databases are copied");
  return url;
}

/** Waits until the databases kept ahead are there (a file that creates many harnesses at once calls it first). */
export async function databasesReady(): Promise<void> {
  while (refilling) await refilling;
  if (failure) throw failure;
}

export async function stopPostgres(): Promise<void> {
  await admin?.close();
  await cluster?.stop();
}
