// docs/performance.md#rate-cards-issue-35: a QUOTE to a provider with a rate card (routes to circles and polygons, distance and hourly rates,
// every kind of surcharge) against the same QUOTE to a provider with the same fleet and no card, alternated one by
// one in the same run, through the whole HTTP pipeline in process. Target: the card's median ≤ 1.25× the no-card's.
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { buildApp } from "../src/app";
import { createServices } from "../src/services";
import { migrate, openDatabase } from "../adapters/sqlite/db";
import { createLogger } from "../adapters/logging";
import { registerCompany } from "../domain/usecases/register-company";
import { putRateCard } from "../domain/usecases/rate-cards";
import { BENCH_DIR, removeDatabase, closeBenchService } from "./fixtures";
import { DOWNTOWN, insertOwned, insertWorldwide } from "./quote";
import { benchRateCard } from "./rate-card-fixture";
import { median, percentile, printFigure, SMOKE, type Figure } from "./report";

export interface QuoteCardsBenchOptions {
  big: number;
  small: number;
  quotes: number;
  rounds: number;
}

export const DEFAULT_QUOTE_CARDS_OPTIONS: QuoteCardsBenchOptions = SMOKE ? { big: 2_000, small: 50, quotes: 10, rounds: 2 } : { big: 50_000, small: 50, quotes: 60, rounds: 5 };

const PASSWORD = "bench password that is long enough";
const PLATFORM = "QCARD-PLATFORM";
/** Each fleet twice: without a card, and the same vehicles under a provider with one. */
const PAIRS = [
  { label: "on the busy airports", plain: "QCARD-BIG", carded: "QCARD-BIG-RC" },
  { label: "everywhere (every airport of the directory)", plain: "QCARD-WORLD", carded: "QCARD-WORLD-RC" },
  { label: "of 50 vehicles", plain: "QCARD-SMALL", carded: "QCARD-SMALL-RC" },
] as const;
const PICKUPS = ["JFK", "LHR", "ATL", "CDG", "DXB", "LAX", "HND", "ORD"];

export async function benchQuoteCards(options: QuoteCardsBenchOptions = DEFAULT_QUOTE_CARDS_OPTIONS): Promise<Figure[]> {
  mkdirSync(BENCH_DIR, { recursive: true });
  const path = join(BENCH_DIR, "quote-cards.sqlite");
  removeDatabase(path);
  const db = openDatabase(path);
  migrate(db);
  const services = createServices(db, { jwtSecret: "bench-secret-that-is-at-least-32-bytes-long", tokenTtlSeconds: 3600 });
  const app = buildApp(services, { logger: createLogger("silent"), maxBodyBytes: 1 << 20, readiness: { ready: true } });
  try {
    const netids = [PLATFORM, ...PAIRS.flatMap((p) => [p.plain, p.carded])];
    for (const [i, netid] of netids.entries())
      await registerCompany(services.registration, {
        netid,
        name: `Bench ${netid}`,
        coType: netid === PLATFORM ? "CO" : "IO",
        mainEmail: `qcard${i}@bench.example`,
        mainPhone: `+1212555${String(3000 + i)}`,
        password: PASSWORD,
        confirmPassword: PASSWORD,
      });
    for (const netid of [PAIRS[0].plain, PAIRS[0].carded]) insertOwned(db.$client, netid, options.big, 11);
    for (const netid of [PAIRS[1].plain, PAIRS[1].carded]) insertWorldwide(db.$client, netid, options.big);
    for (const netid of [PAIRS[2].plain, PAIRS[2].carded]) insertOwned(db.$client, netid, options.small, 12);
    for (const p of PAIRS) await putRateCard(services.rates, p.carded, benchRateCard());
    services.fleetIndex.fleetChanged();
    await services.fleetIndex.whenFresh();
    await services.fleetIndex.typeTreesReady();

    const tokenRes = await app.handle(new Request("http://localhost/Platform.svc/getToken2", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ uid: PLATFORM, pw: PASSWORD }) }));
    const token = (await tokenRes.json()) as string;
    // 23:30 UTC: a night pickup in some of the zones; the airport surcharge applies at every pickup.
    const pickupTime = `${new Date(Date.now() + 30 * 86_400_000).toISOString().slice(0, 10)}T23:30`;
    let resNo = 0;
    const quote = async (provider: string, i: number) => {
      const body = {
        reservationType: "QUOTE",
        passengerCount: "2",
        locations: {
          pickup: { locationType: "airport", address: PICKUPS[i % PICKUPS.length], time: pickupTime },
          dropOff: { address: "downtown", ...DOWNTOWN[PICKUPS[i % PICKUPS.length]] },
        },
        passengers: [{ firstName: "Ada", lastName: "Lovelace" }],
        affiliateReservation: { requesterId: PLATFORM, requesterResNo: `QC-${++resNo}`, providerId: provider, action: "NEW" },
      };
      const t0 = performance.now();
      const res = await app.handle(new Request("http://localhost/Platform.svc/sendTrip/V1", { method: "POST", headers: { "content-type": "application/json", token }, body: JSON.stringify(body) }));
      const answer = (await res.json()) as { fees: Array<{ breakdown?: unknown[] }> };
      const ms = performance.now() - t0;
      if (res.status !== 200) throw new Error(`sendTrip answered ${res.status}`);
      return { ms, options: answer.fees.length, lines: answer.fees.reduce((n, f) => n + (f.breakdown?.length ?? 0), 0) };
    };
    for (let i = 0; i < 16; i++) for (const p of PAIRS) for (const netid of [p.plain, p.carded]) await quote(netid, i);

    const figures: Figure[] = [];
    const rounds = PAIRS.map(() => ({ plain: [] as number[], carded: [] as number[], plainAll: [] as number[], cardedAll: [] as number[], lines: 0, options: 0 }));
    for (let r = 0; r < options.rounds; r++) {
      const times = PAIRS.map(() => ({ plain: [] as number[], carded: [] as number[] }));
      // Alternated one by one (which goes first alternates too), so a noisy stretch of the machine hits both.
      for (let i = 0; i < options.quotes; i++)
        for (const [k, p] of PAIRS.entries()) {
          const order = i % 2 === 0 ? ([p.plain, p.carded] as const) : ([p.carded, p.plain] as const);
          for (const netid of order) {
            const q = await quote(netid, i);
            (netid === p.plain ? times[k].plain : times[k].carded).push(q.ms);
            if (netid === p.carded) {
              rounds[k].lines += q.lines;
              rounds[k].options += q.options;
            }
          }
        }
      times.forEach((t, k) => {
        rounds[k].plain.push(median(t.plain));
        rounds[k].carded.push(median(t.carded));
        rounds[k].plainAll.push(...t.plain);
        rounds[k].cardedAll.push(...t.carded);
      });
    }
    const n = options.quotes * options.rounds;
    for (const [k, p] of PAIRS.entries()) {
      const size = k === 2 ? options.small : options.big;
      const x = rounds[k];
      figures.push({
        part: "quote-cards",
        name: `QUOTE latency with a rate card, provider with ${size.toLocaleString("en-US")} vehicles ${p.label} (in-process HTTP pipeline)`,
        unit: "ms",
        measured: x.carded,
        baseline: { name: "the same QUOTE to the same fleet without a card, same run", runs: x.plain },
        better: "lower",
        target: { ratio: 1.25, text: "≤ 1.25× the no-card figure (median), docs/performance.md#rate-cards-issue-35" },
        note:
          `medians ${median(x.carded).toFixed(2)} ms vs ${median(x.plain).toFixed(2)} ms (×${(median(x.carded) / median(x.plain)).toFixed(2)}); ` +
          `p99 ${percentile(x.cardedAll, 99).toFixed(2)} vs ${percentile(x.plainAll, 99).toFixed(2)} ms; options per quote ${(x.options / n).toFixed(1)}, ` +
          `breakdown lines per option ${(x.lines / Math.max(1, x.options)).toFixed(1)}`,
      });
    }
    for (const f of figures) printFigure(f);
    return figures;
  } finally {
    await closeBenchService(services, db, path);
  }
}

if (import.meta.main) await benchQuoteCards();
