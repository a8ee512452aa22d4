import { expect, test } from "bun:test";
import { runCrashCycles } from "./crash-harness";
import { startDatabase } from "../support/pg-databases";

// The bounded CI version of `npm run test:crash` (which runs at least 10 cycles). CRASH_CYCLES overrides.
const cycles = Number(process.env.CRASH_CYCLES ?? 5);

for (const kind of ["sqlite", "postgres"] as const) {
  test(
    `crash consistency (${kind}): ${cycles} SIGKILLs under concurrent sendTrip load lose no acknowledged trip, duplicate none, keep the file intact, and deliveries resume`,
    async () => {
      const seed = Number(process.env.CRASH_SEED ?? Date.now() % 1_000_000);
      const pg = kind === "postgres" ? await startDatabase() : undefined;
      try {
        const options = { cycles, clients: 4, killAfterMs: [150, 700] as [number, number], seed, deliveryTimeoutMs: 30_000, log: (line: string) => console.log(line) };
        const report = await runCrashCycles({ ...options, databaseUrl: pg?.url });
        console.log(`crash seed ${seed} (${kind})`);
        expect(report.acknowledged).toBeGreaterThan(cycles);
        expect(report.retried).toBeGreaterThan(0);
        expect(report.lost).toBe(0);
        expect(report.duplicated).toBe(0);
        expect(report.changed).toBe(0);
        expect(report.integrity).toBe("ok");
        // Every booking was announced to the provider once (one outbox message), and every one arrived.
        expect(report.bookings).toBeGreaterThanOrEqual(report.acknowledged);
        expect(report.deliveredBookings).toBe(report.bookings);
        expect(report.duplicateDeliveries).toBe(0);
        expect(report.pendingDeliveries).toBe(0);
      } finally {
        await pg?.stop();
      }
    },
    85_000,
  );
}
