import type { FleetSearchIndex } from "../../domain/fleet/ports";
import type { FleetSource } from "../../domain/fleet/source";
import type { PgDb } from "./db";
import { listenWithPoll } from "./listen";

/** The channel the fleet trigger notifies at the commit of every fleet change. */
export const FLEET_CHANNEL = "tripswitch_fleet";

/**
 * Brings fleet changes committed by any instance (or the CLI, or an operator) into this instance's index: it LISTENs
 * on the fleet channel (Bun's client reconnects and subscribes again by itself; every (re)subscription checks the
 * stamp, so nothing committed while disconnected is missed) and checks the stamp every `intervalMs` as a safety net.
 * A check refreshes the source and tells the index the slugs that changed (nothing when none did). Checks never
 * overlap: one asked for while another runs follows it.
 */
export function watchFleetChangesPg(
  db: PgDb,
  source: Required<Pick<FleetSource, "refresh">>,
  index: Pick<FleetSearchIndex, "fleetChanged">,
  onError: (error: unknown) => void,
  intervalMs = 1000,
): { stop(): Promise<void> } {
  let stopped = false;
  let running: Promise<void> | undefined;
  let again = false;

  const check = (): void => {
    if (stopped) return;
    if (running) {
      again = true;
      return;
    }
    running = (async () => {
      do {
        again = false;
        const slugs = await source.refresh();
        if (stopped) return;
        if (slugs === undefined || slugs.length > 0) index.fleetChanged(slugs);
      } while (again && !stopped);
    })()
      .catch(onError)
      .finally(() => {
        running = undefined;
      });
  };

  const listener = listenWithPoll(db, FLEET_CHANNEL, { notified: check, subscribed: check, poll: check }, onError, intervalMs);

  return {
    async stop() {
      stopped = true;
      await listener.stop();
      await running;
    },
  };
}
