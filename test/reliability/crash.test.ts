import { expect, test } from "bun:test";
import { runCrashCycles } from "./crash-harness";

// The bounded CI version of `npm run test:crash` (which runs at least 10 cycles). CRASH_CYCLES overrides.
const cycles = Number(process.env.CRASH_CYCLES ?? 5);

test(
  `crash consistency: ${cycles} SIGKILLs under concurrent sendTrip load lose no acknowledged trip, duplicate none, keep the file intact, and deliveries resume`,
  async () => {
    const seed = Number(process.env.CRASH_SEED ?? Date.now() % 1_000_000);
    const report = await runCrashCycles({ cycles, clients: 4, killAfterMs: [150, 700], seed, deliveryTimeoutMs: 30_000, log: (line) => console.log(line) });
    console.log(`crash seed ${seed}`);
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
  },
  85_000,
);
