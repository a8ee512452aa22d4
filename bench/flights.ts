// `npm run bench:flights` (docs/flights.md#the-pickup-follows-the-flight): 10,000 bookings whose pickups meet a
// flight, then a status feed moving 1,000 of them — POST /api/reservation/{id}/flight-status as a feed sends it, 16 at
// a time — with the provider's delivery endpoint a real Bun.serve on 127.0.0.1 and the delivery worker at production's
// settings. Printed: statuses answered per second, UPDATEs delivered per second, and the time from the status POST to
// the provider's UPDATE arriving at its endpoint (p99 and median). Baseline, measured in the same run, in phases
// alternating with the feed's (each phase waits for its deliveries): as many requester UPDATEs moving the pickup
// (sendTrip action UPDATE) of other bookings of the same store, through the same delivery. On SQLite (a file) by
// default; on PostgreSQL (a throwaway cluster) with TRIPSWITCH_TEST_DB=postgres: `npm run bench:flights:postgres`.
// Bounded: each phase sends for at most 60 s and awaits its deliveries at most 90 s more.
import { join } from "node:path";
import { mkdirSync } from "node:fs";
import { createHarness, type Harness } from "../test/support/harness";
import { ON_POSTGRES, preparePostgres, stopPostgres } from "../test/support/pg-databases";
import { startReceiver } from "../test/support/receiver";
import { party, sendTrip, type Party } from "../test/support/trips";
import { BENCH_DIR, removeDatabase } from "./fixtures";
import { PRODUCTION_POSTGRES } from "./fair-delivery";
import { median, percentile, printFigure, SMOKE, type Figure } from "./report";

export interface FlightBenchOptions {
  /** Bookings with flights in the store. */
  bookings: number;
  /** Pickups the feed moves (and requester UPDATEs in the baseline), in `rounds` alternating halves. */
  moves: number;
  rounds: number;
  /** Status POSTs (and UPDATEs) in flight at once. */
  concurrency: number;
}

export const DEFAULT_FLIGHT_OPTIONS: FlightBenchOptions = SMOKE
  ? { bookings: 300, moves: 40, rounds: 2, concurrency: 8 }
  : { bookings: 10_000, moves: 1_000, rounds: 2, concurrency: 16 };

const PHASE_SEND_MS = 60_000;
const DELIVERY_WAIT_MS = 90_000;
const DATABASE = ON_POSTGRES ? "PostgreSQL" : "SQLite";
/** BA117 lands at JFK at 17:45 and the chauffeur meets it at 18:30 (wall-clock times at the airport, EDT). */
const DAY = "2027-09-04";
const LANDING = `${DAY}T17:45:00`;
const PICKUP = `${DAY}T18:30:00`;
const SEED_BATCH = 500;

const tripBody = (requester: Party, provider: Party, resNo: string, action: "NEW" | "UPDATE", time = PICKUP) => ({
  reservationType: "REGULAR",
  runType: "Airport",
  passengerCount: "2",
  passengers: [{ firstName: "Ada", lastName: "Lovelace" }],
  locations: {
    pickup: { locationType: "airport", address: "JFK", time, flightInfo: { airlineCode: "BA", flightNumber: "117", scheduledArrival: LANDING } },
    dropOff: { locationType: "address", address: "200 Park Ave, New York, NY", lat: "40.7536", lon: "-73.9767" },
  },
  affiliateReservation: { requesterId: requester.netid, providerId: provider.netid, requesterResNo: resNo, action },
});

/**
 * `n` copies of the template booking, each its own transaction id and requester reservation number (in its row and in
 * its trip), written in multi-row statements both databases read alike: what 10,000 sendTrips would store, in seconds.
 */
async function cloneBookings(h: Harness, templateId: string, templateResNo: string, n: number): Promise<Array<{ id: string; resNo: string }>> {
  const made: Array<{ id: string; resNo: string }> = [];
  const copied =
    "requester_id, provider_id, provider_res_no, status, reservation_type, userid, source_platform, target_platform, submit_date, pickup_date, " +
    "updated_at, total_amount, quote_valid_until, content_hash, version";
  for (let done = 0; done < n; done += SEED_BATCH) {
    const batch = Array.from({ length: Math.min(SEED_BATCH, n - done) }, (_, i) => ({ id: Bun.randomUUIDv7(), resNo: `FB-${done + i}` }));
    const values = batch.map(() => "(?, ?)").join(", ");
    await h.rows(
      `INSERT INTO bookings (transaction_id, requester_res_no, ${copied}, trip_packet, change_logs, transaction_errors, offer_due, settle_units, currency, fare_final_at) ` +
        `SELECT v.column1, v.column2, ${copied.split(", ").map((c) => `t.${c}`).join(", ")}, replace(t.trip_packet, ?, v.column2), t.change_logs, ` +
        `t.transaction_errors, t.offer_due, t.settle_units, t.currency, t.fare_final_at FROM (VALUES ${values}) AS v CROSS JOIN bookings t WHERE t.transaction_id = ?`,
      templateResNo,
      ...batch.flatMap((b) => [b.id, b.resNo]),
      templateId,
    );
    made.push(...batch);
  }
  return made;
}

/** Runs `one` over `items`, `concurrency` at a time, until they are done or `deadline` (ms) passes; how many ran. */
async function pool<T>(items: T[], concurrency: number, deadline: number, one: (item: T) => Promise<void>): Promise<number> {
  let next = 0;
  const lane = async () => {
    while (next < items.length && performance.now() < deadline) await one(items[next++]);
  };
  await Promise.all(Array.from({ length: concurrency }, lane));
  return next;
}

export async function benchFlights(options: FlightBenchOptions = DEFAULT_FLIGHT_OPTIONS): Promise<Figure[]> {
  mkdirSync(BENCH_DIR, { recursive: true });
  if (ON_POSTGRES) await preparePostgres();
  const path = join(BENCH_DIR, `flights-${process.pid}.sqlite`);
  removeDatabase(path);
  // Where each booking's UPDATE arrived (performance.now()), by transaction id: the provider's endpoint.
  const arrived = new Map<string, number>();
  const endpoint = startReceiver((r) => {
    if (r.headers["x-tripswitch-event-type"] === "trip.update" && typeof r.json?.transactionId === "string") arrived.set(r.json.transactionId, performance.now());
    return Response.json({ success: true });
  });
  const h = createHarness({
    dbPath: ON_POSTGRES ? undefined : path,
    delivery: { concurrency: 8, timeoutMs: 10_000, idleMs: 1000 },
    // One requester makes every booking and change: its bound on stored live events (docs/security.md#per-company-store-bounds) is lifted.
    storeBounds: { liveEventBytes: 1e12 },
    postgres: PRODUCTION_POSTGRES,
  });
  try {
    const seedStarted = performance.now();
    const [requester, provider] = await Promise.all([party(h, "FB-BOOK", "CO"), party(h, "FB-OPS", "IO")]);
    const put = await h.request("PUT", "/api/company/integration", { headers: { authorization: `Bearer ${provider.jwt}` }, body: { deliveryUrl: `${endpoint.url}/farm-in` } });
    if (put.status !== 200) throw new Error(`integration: ${put.status} ${put.text}`);
    const templateResNo = "FB-TEMPLATE";
    const template = await sendTrip(h, requester, tripBody(requester, provider, templateResNo, "NEW"));
    if (template.status !== 200) throw new Error(`template: ${template.status} ${template.text}`);
    const stored = await cloneBookings(h, template.body.transactionId, templateResNo, options.bookings - 1);
    const seedSeconds = (performance.now() - seedStarted) / 1000;
    h.services.worker.start();

    const bearer = { authorization: `Bearer ${requester.jwt}` };
    const cpuStarted = process.cpuUsage();
    const wallStarted = performance.now();
    /**
     * One phase: `send` for each booking, `concurrency` at a time, then until each booking's UPDATE reached the provider
     * (bounded): POSTs answered per second, UPDATEs delivered per second (first POST → last delivery), the latencies.
     */
    const phase = async (batch: typeof stored, send: (b: (typeof stored)[number]) => Promise<void>) => {
      const sent = new Map<string, number>();
      const t0 = performance.now();
      const ran = await pool(batch, options.concurrency, t0 + PHASE_SEND_MS, async (b) => {
        sent.set(b.id, performance.now());
        await send(b);
      });
      const answered = ran / ((performance.now() - t0) / 1000);
      const waitEnd = performance.now() + DELIVERY_WAIT_MS;
      const arrivedOf = () => [...sent.keys()].filter((id) => arrived.has(id)).length;
      while (arrivedOf() < sent.size && performance.now() < waitEnd) await Bun.sleep(50);
      const latencies = [...sent].filter(([id]) => arrived.has(id)).map(([id, at]) => arrived.get(id)! - at);
      const last = Math.max(...[...sent.keys()].map((id) => arrived.get(id) ?? 0));
      return { ran, answered, delivered: latencies.length / ((last - t0) / 1000), latencies, missing: sent.size - latencies.length };
    };
    const feed = { answered: [] as number[], delivered: [] as number[], latencies: [] as number[], ran: 0, missing: 0 };
    const update = { answered: [] as number[], delivered: [] as number[], latencies: [] as number[], ran: 0, missing: 0 };
    const add = (into: typeof feed, got: Awaited<ReturnType<typeof phase>>) => {
      if (got.latencies.length === 0) throw new Error("a phase sent or delivered nothing in its time");
      into.answered.push(got.answered);
      into.delivered.push(got.delivered);
      into.latencies.push(...got.latencies);
      into.ran += got.ran;
      into.missing += got.missing;
    };
    const per = Math.floor(options.moves / options.rounds);
    for (let round = 0; round < options.rounds; round++) {
      // The feed: each flight late by 5 to 64 minutes, so each status moves its pickup.
      const moved = await phase(stored.slice(round * per, (round + 1) * per), async (b) => {
        const landing = 45 + 5 + (Number(b.resNo.slice(3)) % 60);
        const at = `${DAY}T${String(17 + Math.floor(landing / 60)).padStart(2, "0")}:${String(landing % 60).padStart(2, "0")}:00`;
        const res = await h.request("POST", `/api/reservation/${b.id}/flight-status`, { headers: bearer, body: { estimatedArrival: at } });
        if (res.status !== 200 || res.body.data?.moved !== true) throw new Error(`flight-status ${b.id}: ${res.status} ${res.text.slice(0, 300)}`);
      });
      add(feed, moved);
      // The baseline: the requester moves the pickup itself (an UPDATE of the whole trip), as many other bookings.
      const changed = await phase(stored.slice(options.moves + round * per, options.moves + (round + 1) * per), async (b) => {
        const res = await sendTrip(h, requester, tripBody(requester, provider, b.resNo, "UPDATE", `${DAY}T19:10:00`));
        if (res.status !== 200) throw new Error(`UPDATE ${b.resNo}: ${res.status} ${res.text.slice(0, 300)}`);
      });
      add(update, changed);
    }
    const cpu = process.cpuUsage(cpuStarted);
    const cpuShare = (cpu.user + cpu.system) / 1000 / (performance.now() - wallStarted);
    const missing = feed.missing + update.missing;
    const size = `${options.bookings.toLocaleString("en-US")} bookings with flights`;
    const baselineName = "requester UPDATEs moving the pickup (sendTrip), same store, same delivery";
    const note =
      `${DATABASE}; ${feed.ran} moves and ${update.ran} UPDATEs sent ${options.concurrency} at a time, one provider; ${missing} deliveries ` +
      `missing; seeded in ${seedSeconds.toFixed(1)} s; the bench's process had ${(cpuShare * 100).toFixed(0)}% of a core while measuring`;
    const figures: Figure[] = [
      {
        part: "flights",
        name: `${DATABASE}: flight statuses answered per second, each moving a pickup (${feed.ran} of ${size})`,
        unit: "moves/s",
        measured: feed.answered,
        baseline: { name: baselineName, runs: update.answered },
        better: "higher",
        note,
      },
      {
        part: "flights",
        name: `${DATABASE}: moved pickups' UPDATEs delivered per second (first status POST → last UPDATE at the provider)`,
        unit: "moves/s",
        measured: feed.delivered,
        baseline: { name: baselineName, runs: update.delivered },
        better: "higher",
      },
      {
        part: "flights",
        name: `${DATABASE}: status POST → provider's UPDATE delivered, p99 (median ${median(feed.latencies).toFixed(0)} ms) of ${feed.latencies.length}`,
        unit: "ms",
        measured: [percentile(feed.latencies, 99)],
        baseline: { name: `${baselineName} (median ${median(update.latencies).toFixed(0)} ms)`, runs: [percentile(update.latencies, 99)] },
        better: "lower",
        target: { value: 5000, text: "within 5 s (docs/flights.md#the-pickup-follows-the-flight)" },
      },
    ];
    for (const f of figures) printFigure(f);
    if (missing > 0) throw new Error(`${missing} UPDATEs never reached the provider's endpoint`);
    return figures;
  } finally {
    await h.close();
    endpoint.stop();
    removeDatabase(path);
    if (ON_POSTGRES) await stopPostgres();
  }
}

if (import.meta.main) await benchFlights();
