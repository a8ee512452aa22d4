// `npm run test:crash`: the long crash-consistency run (CRASH_CYCLES, default 12; CRASH_SEED to repeat a run;
// CRASH_DB=postgres on PostgreSQL).
// Prints the counts and exits 1 when anything acknowledged was lost or duplicated.
import { runCrashCycles } from "../test/reliability/crash-harness";
import { startCluster } from "./pg-cluster";

const cycles = Math.max(10, Number(process.env.CRASH_CYCLES ?? 12));
const seed = Number(process.env.CRASH_SEED ?? Date.now() % 1_000_000);
console.log(`crash run: ${cycles} cycles, seed ${seed}`);
// CRASH_DB=postgres: the service on a throwaway PostgreSQL cluster (durability on) instead of an SQLite file.
const cluster = process.env.CRASH_DB === "postgres" ? await startCluster({ durable: true }) : undefined;
if (cluster) console.log("on PostgreSQL (a throwaway cluster, durability on)");
const r = await runCrashCycles({ cycles, clients: 6, killAfterMs: [100, 1200], seed, deliveryTimeoutMs: 60_000, log: (line) => console.log(line), databaseUrl: cluster?.url }).finally(() =>
  cluster?.stop(),
);
const ok = r.lost === 0 && r.duplicated === 0 && r.changed === 0 && r.integrity === "ok" && r.deliveredBookings === r.bookings && r.duplicateDeliveries === 0 && r.pendingDeliveries === 0;
console.log(`cycles=${r.cycles} acknowledged=${r.acknowledged} lost=${r.lost} duplicated=${r.duplicated} integrity=${r.integrity} delivered=${r.deliveredBookings}/${r.bookings} ${ok ? "PASS" : "FAIL"}`);
process.exit(ok ? 0 : 1);
