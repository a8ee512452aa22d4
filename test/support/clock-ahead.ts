import { join, resolve } from "node:path";

/**
 * A service process whose clock reads ahead of the machine's, as if that much time had passed while no process ran:
 * a test that waits for a real deadline (an offer's acceptBy is at least a minute after the offer) restarts the
 * service with its clock at the deadline instead of sleeping until it. This file is preloaded into the service
 * (`bun --preload`): its main thread, where the service reads the clock it decides by (Date.now, through the system
 * clock), reads TRIPSWITCH_TEST_CLOCK_AHEAD_MS more. Nothing of src/ knows of it; it imports nothing of the tests.
 */
const ahead = Number(process.env.TRIPSWITCH_TEST_CLOCK_AHEAD_MS ?? "0");
if (Number.isFinite(ahead) && ahead > 0) {
  const machine = Date.now;
  Date.now = () => machine() + ahead;
}

/** startServer's `command` and the environment for a service whose clock is `aheadMs` ahead of the machine's. */
export function clockAhead(aheadMs: number): { env: Record<string, string>; command: string[] } {
  return {
    env: { TRIPSWITCH_TEST_CLOCK_AHEAD_MS: String(Math.max(0, Math.round(aheadMs))) },
    command: [process.execPath, "--preload", join(import.meta.dir, "clock-ahead.ts"), resolve(import.meta.dir, "../../src/main.ts")],
  };
}
