// Part: acceptance deadlines and the cascade (docs/terms.md#the-acceptance-deadline-acceptby, docs/terms.md#the-cascade-fallback). With 10,000 open requests (BOOKING_REQUEST, not yet
// accepted) on a fresh SQLite file, through the whole HTTP app in process:
// - lapses per second: every open request's acceptBy passes at once and one watch pass ends them all (REJECT
//   ACCEPT_TIMEOUT); baseline, measured in the same run: as many provider REJECTs sent through the HTTP API, per second;
// - cascades per second: bookings of network-quote options with a fallback, their provider REJECTs, one pass moves
//   each to the next provider (claim the next vehicle, one transaction); baseline: the same number of lapses;
// - the delay past acceptBy with the watch's own timer at its default interval (p99 and median, seconds).
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { migrate, openDatabase } from "../adapters/sqlite/db";
import { createLogger } from "../adapters/logging";
import { buildApp } from "../src/app";
import { createServices, OFFER_WATCH_INTERVAL_MS, startOfferWatch } from "../src/services";
import { watchOffers } from "../domain/usecases/offer-watch";
import { HOLD_LIMITS } from "../domain/fleet/holds";
import { BENCH_DIR, removeDatabase } from "./fixtures";
import { median, percentile, printFigure, SMOKE, type Figure } from "./report";

export interface OfferBenchOptions {
  open: number;
  cascades: number;
  runs: number;
}

export const DEFAULT_OFFER_OPTIONS: OfferBenchOptions = SMOKE ? { open: 300, cascades: 30, runs: 1 } : { open: 10_000, cascades: 300, runs: 2 };

/** A clock the bench moves: real time plus an offset (so the delivery worker's real time is never behind it by much). */
class ShiftedClock {
  offset = 0;
  now(): number {
    return Math.floor(Date.now() / 1000) + this.offset;
  }
}

export async function benchOffers(options: OfferBenchOptions = DEFAULT_OFFER_OPTIONS): Promise<Figure[]> {
  mkdirSync(BENCH_DIR, { recursive: true });
  const path = join(BENCH_DIR, `offers-${process.pid}.sqlite`);
  removeDatabase(path);
  const db = openDatabase(path);
  migrate(db);
  const clock = new ShiftedClock();
  // One requester makes every booking: the per-company bound on stored live events (docs/security.md#per-company-store-bounds) is lifted here.
  const storeBounds = { liveEventBytes: 1e12 };
  const services = createServices(db, { jwtSecret: "bench-secret-that-is-at-least-32-bytes!", tokenTtlSeconds: 3600, storeBounds }, clock);
  const app = buildApp(services, { logger: createLogger("silent"), maxBodyBytes: 1048576, readiness: { ready: true } });
  const call = async (method: string, path: string, body: unknown, auth: Record<string, string> = {}) => {
    const res = await app.handle(new Request(`http://localhost${path}`, { method, headers: { "content-type": "application/json", ...auth }, body: JSON.stringify(body) }));
    return { status: res.status, body: (await res.json()) as any };
  };
  const password = "correct horse battery staple";
  const register = async (netid: string, coType: string, n: number) => {
    const mainEmail = `ops@${netid.toLowerCase()}.example`;
    const made = await call("POST", "/api/company/register", { name: netid, netid, mainEmail, password, confirmPassword: password, mainPhone: `+1212555${1000 + n}`, coType });
    if (made.status !== 200) throw new Error(`register ${netid}: ${made.status}`);
    const jwt = (await call("POST", "/api/token", { uid: netid, pw: password })).body.token as string;
    const token = (await call("POST", "/Platform.svc/getToken2", { uid: netid, pw: password })).body as string;
    return { netid, jwt, token };
  };
  const inBatches = async <T>(n: number, size: number, one: (i: number) => Promise<T>): Promise<T[]> => {
    const out: T[] = [];
    for (let i = 0; i < n; i += size) out.push(...(await Promise.all(Array.from({ length: Math.min(size, n - i) }, (_, k) => one(i + k)))));
    return out;
  };
  let resNo = 0;
  const trip = (requester: string, provider: string, pickupIn: number, minutes: number) => ({
    reservationType: "REGULAR",
    passengerCount: "2",
    locations: { pickup: { locationType: "airport", address: "JFK", time: new Date((clock.now() + pickupIn) * 1000).toISOString() } },
    passengers: [{ firstName: "A", lastName: "B" }],
    acceptWithinMinutes: minutes,
    affiliateReservation: { requesterId: requester, requesterResNo: `OB-${++resNo}`, providerId: provider, action: "NEW" },
  });
  try {
    const req = await register("OB-REQ", "CO", 0);
    const ops = await Promise.all([1, 2].map((i) => register(`OB-OPS-${i}`, "IO", i)));
    for (const [i, op] of ops.entries()) {
      const car = { type: "SEDAN", name: `Car ${i}`, maxPassengers: 3, minimum_rate: 50, hourly_rate: 40 + i, lat: 40.645, lon: -73.78 };
      if ((await call("POST", "/api/fleet", car, { authorization: `Bearer ${op.jwt}` })).status !== 200) throw new Error("adding a car failed");
    }
    await services.fleetIndex.rebuildNow();
    // A requester keeps at most its plan's unaccepted holds with one provider (docs/availability.md#hold-limits: 10 on
    // FREE, else 429 HOLD_LIMIT): the cascade's bookings come from requesters of 10 bookings each, fresh ones every
    // run, as many companies' traffic does.
    const perRequester = HOLD_LIMITS.FREE.perProvider;
    const perRun = Math.ceil(options.cascades / perRequester);
    const bookers = await inBatches(perRun * options.runs, 8, (k) => register(`OB-BOOK-${k}`, "CO", 100 + k));
    const open = async (n: number, minutes: number) =>
      inBatches(n, 64, async () => {
        const res = await call("POST", "/Platform.svc/sendTrip/V1", trip(req.netid, ops[0].netid, 3 * 86_400, minutes), { token: req.token });
        if (res.status !== 200) throw new Error(`sendTrip: ${res.status} ${JSON.stringify(res.body)}`);
        return res.body.transactionId as string;
      });

    const lapses: number[] = [];
    const rejects: number[] = [];
    const cascades: number[] = [];
    const cascadeBaseline: number[] = [];
    for (let run = 0; run < options.runs; run++) {
      // Lapses: `open` requests, every acceptBy passed, one pass.
      await open(options.open, 1);
      clock.offset += 61;
      let t = performance.now();
      const pass = await watchOffers(services.offers);
      if (pass.ended !== options.open) throw new Error(`lapse pass ended ${pass.ended} of ${options.open}`);
      lapses.push(options.open / ((performance.now() - t) / 1000));
      // Baseline: the same number of provider REJECTs through HTTP.
      const ids = await open(options.open, 1440);
      t = performance.now();
      await inBatches(ids.length, 64, async (i) => {
        const res = await call("POST", `/Platform.svc/providerUpdateStatusByTransactionId/${ids[i]}/V1`, { status: "REJECT" }, { token: ops[0].token });
        if (res.status !== 200) throw new Error(`REJECT: ${res.status}`);
      });
      rejects.push(options.open / ((performance.now() - t) / 1000));

      // Cascades: network-quote bookings (each its own hour) with a fallback; their provider REJECTs; one pass moves them.
      const booked = await inBatches(options.cascades, 16, async (i) => {
        const hour = clock.now() + 5 * 86_400 + (run * options.cascades + i) * 4 * 3600;
        const booker = bookers[run * perRun + Math.floor(i / perRequester)];
        const q = await call("POST", "/api/quotes", { passengerCount: "2", locations: { pickup: { locationType: "airport", address: "JFK", time: new Date(hour * 1000).toISOString() } } }, { authorization: `Bearer ${booker.jwt}` });
        const option = q.body.data.options.find((o: { provider: { netid: string } }) => o.provider.netid === ops[0].netid);
        const body = { quoteOptionId: option.quoteOptionId, requesterResNo: `OBC-${++resNo}`, passengers: [{ firstName: "A", lastName: "B" }], fallback: { maxFee: "10000" } };
        const res = await call("POST", `/api/quotes/${q.body.data.quoteId}/book`, body, { authorization: `Bearer ${booker.jwt}` });
        if (res.status !== 200) throw new Error(`book: ${res.status} ${JSON.stringify(res.body)}`);
        await call("POST", `/Platform.svc/providerUpdateStatusByTransactionId/${res.body.transactionId}/V1`, { status: "REJECT" }, { token: ops[0].token });
        return res.body.transactionId as string;
      });
      t = performance.now();
      const moved = await watchOffers(services.offers);
      if (moved.moved !== booked.length) throw new Error(`cascade pass moved ${moved.moved} of ${booked.length}`);
      cascades.push(booked.length / ((performance.now() - t) / 1000));
      await open(options.cascades, 1);
      clock.offset += 61;
      t = performance.now();
      await watchOffers(services.offers);
      cascadeBaseline.push(options.cascades / ((performance.now() - t) / 1000));
    }

    // The delay past acceptBy with the watch's own timer: open requests whose acceptBy comes in 1–2 s of real time.
    const lapseAt = new Map<string, number>();
    const repository = services.offers.bookings;
    const change = repository.change.bind(repository);
    services.offers.bookings = {
      findById: (id: string) => repository.findById(id),
      change: (async (ref: { transactionId: string }, decide: never) => {
        const out = (await change(ref as never, decide)) as { kind: string };
        if (out.kind !== "none") lapseAt.set(ref.transactionId, Date.now());
        return out;
      }) as never,
    };
    const delayed = Math.min(options.open, 2000);
    const ids = await open(delayed, 1);
    clock.offset += 58; // acceptBy comes within ~2 s
    const stop = startOfferWatch(services, OFFER_WATCH_INTERVAL_MS);
    const end = Date.now() + 30_000;
    while (lapseAt.size < ids.length && Date.now() < end) await Bun.sleep(100);
    await stop();
    const due = (await Promise.all(ids.map((id) => repository.findById(id)))).map((b) => (b!.acceptBy! - clock.offset) * 1000);
    const delays = ids.map((id, i) => ((lapseAt.get(id) ?? Date.now()) - Math.max(due[i], 0)) / 1000).map((s) => Math.max(0, s));

    const figures: Figure[] = [
      {
        part: "offers",
        name: `lapses per second, one watch pass over ${options.open.toLocaleString("en-US")} open requests past acceptBy`,
        unit: "lapses/s",
        measured: lapses,
        baseline: { name: `${options.open.toLocaleString("en-US")} provider REJECTs through the HTTP API`, runs: rejects },
        better: "higher",
      },
      {
        part: "offers",
        name: `cascades per second (REJECT → next provider, vehicle re-claimed, one transaction), ${options.cascades} bookings`,
        unit: "moves/s",
        measured: cascades,
        baseline: { name: `${options.cascades} lapses ending as REJECT`, runs: cascadeBaseline },
        better: "higher",
      },
      {
        part: "offers",
        name: `delay past acceptBy, watch every ${OFFER_WATCH_INTERVAL_MS / 1000} s: p99 (median ${median(delays).toFixed(2)} s) of ${ids.length}`,
        unit: "s",
        measured: [percentile(delays, 99)],
        better: "lower",
        target: { value: 30, text: "within 30 s of acceptBy (docs/terms.md#the-acceptance-deadline-acceptby)" },
      },
    ];
    for (const f of figures) printFigure(f);
    return figures;
  } finally {
    await services.worker.stop();
    db.$client.close();
    removeDatabase(path);
  }
}

if (import.meta.main) await benchOffers();
