import { expect } from "bun:test";
import { watchOffers, type OfferWatchDeps } from "../../domain/usecases/offer-watch";
import { createHarness, FAST_DELIVERY, type Harness, type ManualClock } from "./harness";
import { jfkVehicle } from "./jfk";
import type { startReceiver } from "./receiver";
import { integrate, party, type Party } from "./trips";

/**
 * What the cascade's tests through HTTP share (docs/terms.md#the-cascade-fallback): a requester and three providers
 * with a vehicle each at JFK, deliveries to a local receiver, a clock set in the past, the offer watch run by hand.
 */

type Receiver = ReturnType<typeof startReceiver>;

/**
 * A function setting the clock `seconds` before real time. The outbox sends a message once real time reaches the
 * change's time, so a test books in the past and moves the clock forward, never past real time.
 */
export const rewinder = (clock: ManualClock) => (seconds: number) => (clock.t = Math.floor(Date.now() / 1000) - seconds);

/**
 * One pass of the offer watch, as the service's timer runs it, that claimed something: a pass that claims nothing is
 * tried again, up to `tries` passes `pauseMs` apart (on PostgreSQL the claim skips a booking row another transaction
 * holds locked at that moment, the delivery worker recording an attempt: FOR UPDATE SKIP LOCKED leaves it to the
 * next pass, which in production comes within OFFER_WATCH_MS).
 */
export async function watchUntilClaimed(offers: OfferWatchDeps, tries: number, pauseMs: number, onError?: (err: unknown, id: string) => void) {
  for (let i = 0; ; i++) {
    const pass = await watchOffers(offers, onError);
    if (pass.claimed > 0 || i >= tries) return pass;
    await Bun.sleep(pauseMs);
  }
}

/** Logs a booking the offer watch failed on (the pass goes on with the next). */
export const logWatchFailure = (err: unknown, id: string) => console.error("offer watch failed", id, err);

/** Waits up to `ms` for `check` to hold, then asserts it. */
export async function eventually(check: () => boolean, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check() && Date.now() < end) await Bun.sleep(20);
  expect(check()).toBe(true);
}

/** What `rx` received for booking `id`: at `path` (a provider's deliveries), and as the requester's webhooks (/hooks). */
export function receivedBy(rx: Receiver) {
  return {
    received: (path: string, id: string) => rx.received.filter((r) => r.path === path && r.json?.transactionId === id),
    hooks: (id: string) => rx.received.filter((r) => r.path === "/hooks" && r.json?.data?.transactionId === id),
  };
}

/** A provider's vehicle: its slug, hourly price and type. */
export type CascadeVehicle = readonly [slug: string, hourly: string, type: string];

/**
 * A harness on `clock` delivering fast, with the requester `netids[0]` and the providers `netids[1..3]`, each provider
 * with its vehicle at JFK and its deliveries sent to `rx` at /p1, /p2, /p3; then `settle` (a provider's own terms),
 * the requester's webhooks to `rx` at /hooks in the events format when `webhooks`, the fleet indexed, the delivery
 * worker started.
 */
export async function cascadeWorld(
  clock: ManualClock,
  rx: Receiver,
  netids: readonly [string, string, string, string],
  vehicles: readonly [CascadeVehicle, CascadeVehicle, CascadeVehicle],
  options: { webhooks: boolean; settle?: (h: Harness, providers: [Party, Party, Party]) => Promise<void> },
): Promise<{ h: Harness; maker: Party; p1: Party; p2: Party; p3: Party }> {
  const h = createHarness({ clock, delivery: FAST_DELIVERY });
  const [maker, p1, p2, p3] = await Promise.all([party(h, netids[0], "CO"), party(h, netids[1], "IO"), party(h, netids[2], "IO"), party(h, netids[3], "IO")]);
  const providers: [Party, Party, Party] = [p1, p2, p3];
  for (const [i, p] of providers.entries()) await jfkVehicle(h, p.netid, ...vehicles[i]);
  for (const [i, p] of providers.entries()) expect((await integrate(h, p, { deliveryUrl: `${rx.url}/p${i + 1}` })).status).toBe(200);
  await options.settle?.(h, providers);
  if (options.webhooks) expect((await integrate(h, maker, { webhookUrl: `${rx.url}/hooks`, webhookFormat: "events" })).status).toBe(200);
  h.services.fleetIndex.fleetChanged();
  await h.indexed();
  h.services.worker.start();
  return { h, maker, p1, p2, p3 };
}
