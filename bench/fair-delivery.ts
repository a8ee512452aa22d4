// Fair delivery (docs/security.md#delivery-and-limits, issue 37 N4): a healthy partner's WAIT latency while 16 tarpit companies' farm-in
// and webhook endpoints answer in 4.5 s, against a same-run baseline without tarpits. Production's worker settings
// (8 workers, 10 s timeout); every endpoint is a real HTTP server on 127.0.0.1. `bun bench/fair-delivery.ts` on
// SQLite; on PostgreSQL (a throwaway cluster, as the test suite's PostgreSQL run) with TRIPSWITCH_TEST_DB=postgres.
import { createHarness, type Harness } from "../test/support/harness";
import { ON_POSTGRES, preparePostgres, stopPostgres } from "../test/support/pg-databases";
import { DEFAULT_DELIVERY_LEASE_SECONDS } from "../src/storage/postgres";
import { startReceiver } from "../test/support/receiver";
import { party, regularTrip, sendTrip } from "../test/support/trips";
import { median, percentile, printFigure, SMOKE, type Figure } from "./report";

const TARPITS = 16;
const TARPIT_MS = 4500;
const WAITS = SMOKE ? 8 : 40;
const WARMUP_MS = 5000;
const DATABASE = ON_POSTGRES ? "PostgreSQL" : "SQLite";
/** On PostgreSQL, the served pool (src/backend.ts) and outbox lease (src/storage/postgres.ts), not the tests' smaller ones. */
export const PRODUCTION_POSTGRES = { pool: 16, leaseSeconds: DEFAULT_DELIVERY_LEASE_SECONDS };

async function integrate(h: Harness, jwt: string, body: Record<string, unknown>): Promise<void> {
  const put = await h.request("PUT", "/api/company/integration", { headers: { authorization: `Bearer ${jwt}` }, body });
  if (put.status !== 200) throw new Error(`integration: ${put.status} ${put.text}`);
}

/**
 * Healthy WAIT latencies (ms), with or without the tarpit companies sending all along, and how many WAITs ended
 * unanswered (the booking left in BOOKING_REQUEST when the WAIT gave up: its latency is the time it waited).
 */
async function run(withTarpits: boolean): Promise<{ latencies: number[]; unanswered: number }> {
  const h = createHarness({
    delivery: { concurrency: 8, timeoutMs: 10_000, idleMs: 1000, retryDelay: (n) => (n < 10 ? 1 : undefined) },
    postgres: PRODUCTION_POSTGRES,
  });
  const stops: Array<() => unknown> = [() => h.close()];
  try {
    const companies: Array<Awaited<ReturnType<typeof party>>> = [];
    if (withTarpits) {
      for (let i = 0; i < TARPITS; i++) {
        const tarpit = startReceiver(async () => {
          await Bun.sleep(TARPIT_MS);
          return Response.json({ success: true });
        });
        stops.push(tarpit.stop);
        const company = await party(h, `TARPIT-${i}`, "IO");
        await integrate(h, company.jwt, { deliveryUrl: `${tarpit.url}/farm-in`, webhookUrl: `${tarpit.url}/hooks` });
        companies.push(company);
      }
    }
    const good = startReceiver((_r, n) => Response.json({ success: true, reservationId: `FINE-${n}` }));
    stops.push(good.stop);
    const fine = await party(h, "FINE-PARTNER", "IO");
    const booker = await party(h, "FINE-BOOKER", "CO");
    await integrate(h, fine.jwt, { deliveryUrl: `${good.url}/farm-in` });
    h.services.worker.start();
    // The tarpit companies keep booking with each other: each a trip a second, deliveries and webhooks to tarpits.
    let feeding = withTarpits;
    const feed = (async () => {
      while (feeding) {
        await Promise.all(companies.map((c, i) => sendTrip(h, c, regularTrip(c.netid, companies[(i + 1) % TARPITS].netid))));
        await Bun.sleep(1000);
      }
    })();
    if (withTarpits) await Bun.sleep(WARMUP_MS);
    const latencies: number[] = [];
    let unanswered = 0;
    for (let n = 0; n < WAITS; n++) {
      const started = performance.now();
      const sent = await sendTrip(h, booker, regularTrip(booker.netid, fine.netid, { submitMode: "WAIT" }));
      latencies.push(performance.now() - started);
      const answered = String(sent.body.reservationId ?? "").startsWith("FINE-");
      if (sent.status !== 200) throw new Error(`WAIT ${n}: ${sent.status} ${sent.text.slice(0, 200)}`);
      if (!answered) unanswered++;
      await Bun.sleep(200);
    }
    feeding = false;
    await feed;
    return { latencies, unanswered };
  } finally {
    for (const stop of stops.reverse()) await stop();
  }
}

export async function benchFairDelivery(): Promise<Figure[]> {
  if (ON_POSTGRES) await preparePostgres();
  let base: Awaited<ReturnType<typeof run>>, load: Awaited<ReturnType<typeof run>>;
  try {
    base = await run(false);
    load = await run(true);
  } finally {
    if (ON_POSTGRES) await stopPostgres();
  }
  const [baseline, loaded] = [base.latencies, load.latencies];
  const note = `WAITs unanswered in time: ${load.unanswered} of ${WAITS} with tarpits, ${base.unanswered} of ${WAITS} without`;
  const figures: Figure[] = [
    {
      part: "fair-delivery",
      name: `${DATABASE}: healthy WAIT median, ${TARPITS} tarpit companies (${TARPIT_MS / 1000} s answers)`,
      unit: "ms",
      measured: [median(loaded)],
      baseline: { name: "no tarpits, same run", runs: [median(baseline)] },
      better: "lower",
      target: { value: 1000, text: "< 1 s (its normal time)" },
      note,
    },
    {
      part: "fair-delivery",
      name: `${DATABASE}: healthy WAIT p99, ${TARPITS} tarpit companies (${TARPIT_MS / 1000} s answers)`,
      unit: "ms",
      measured: [percentile(loaded, 99)],
      baseline: { name: "no tarpits, same run", runs: [percentile(baseline, 99)] },
      better: "lower",
      target: { value: 1000, text: "< 1 s" },
    },
    {
      part: "fair-delivery",
      name: `${DATABASE}: healthy WAITs unanswered in time, ${TARPITS} tarpit companies (of ${WAITS})`,
      unit: "WAITs",
      measured: [load.unanswered],
      better: "lower",
      target: { value: 0, text: "none" },
    },
  ];
  for (const f of figures) printFigure(f);
  return figures;
}

if (import.meta.main) await benchFairDelivery();
