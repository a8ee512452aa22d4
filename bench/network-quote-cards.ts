// docs/performance.md#rate-cards-issue-35: POST /api/quotes when every provider has a rate card (routes to circles and polygons, a polygon
// every pickup falls in, distance and hourly rates, every kind of surcharge) against the same quotes without cards,
// in the same run: runs alternate (no cards, cards on every provider, no cards, …) over the same pickups, on the 100k
// fixture fleet spread over 1,000 providers. Target: the card runs' p50 ≤ 1.25× the no-card runs' (medians).
import { rmSync } from "node:fs";
import { migrate, openDatabase } from "../adapters/sqlite/db";
import { createLogger } from "../adapters/logging";
import { BackgroundCheckpointer } from "../adapters/sqlite/checkpointer";
import { buildApp } from "../src/app";
import { createServices } from "../src/services";
import { putRateCard } from "../domain/usecases/rate-cards";
import { BENCH_PASSWORD, BENCH_PLATFORM, fixtureDatabase } from "./fixtures";
import { spreadOverProviders, timedEach } from "./network-quote";
import { benchRateCard } from "./rate-card-fixture";
import { median, percentile, printFigure, SMOKE, type Figure } from "./report";
import { searchQueries, VARIANTS } from "./search";

export interface NetworkQuoteCardsOptions {
  size: number;
  providers: number;
  /** Runs of each kind (plus one warm-up of each), and requests per run. */
  runs: number;
  requests: number;
}

export const DEFAULT_NETWORK_QUOTE_CARDS_OPTIONS: NetworkQuoteCardsOptions = SMOKE
  ? { size: 2_000, providers: 50, runs: 2, requests: 40 }
  : { size: 100_000, providers: 1_000, runs: 3, requests: 400 };

export async function benchNetworkQuoteCards(options: NetworkQuoteCardsOptions = DEFAULT_NETWORK_QUOTE_CARDS_OPTIONS): Promise<Figure[]> {
  const path = spreadOverProviders(await fixtureDatabase(options.size), options.providers);
  const db = openDatabase(path);
  migrate(db);
  const services = createServices(db, { jwtSecret: "bench-secret-that-is-at-least-32-bytes!", tokenTtlSeconds: 3600, storeBounds: { quotesPerHour: 1_000_000, quoteKeptBytes: 1e12 } });
  const app = buildApp(services, { logger: createLogger("silent"), maxBodyBytes: 1048576, readiness: { ready: true } });
  const checkpointer = await BackgroundCheckpointer.start(db.$client);
  try {
    await services.fleetIndex.rebuildNow();
    await services.fleetIndex.typeTreesReady();
    const providers = Array.from({ length: options.providers }, (_, i) => `BENCH-NQ-${String(i + 1).padStart(4, "0")}`);
    // The card checked once through the use case, then stored for every provider as it is.
    await putRateCard(services.rates, providers[0], benchRateCard());
    const card = (await services.rates.rateCards.get(providers[0]))!.card;
    const cardsOn = async (on: boolean) => {
      for (const netid of providers) await (on ? services.rates.rateCards.put(netid, card, 0) : services.rates.rateCards.delete(netid));
    };

    const login = await app.handle(new Request("http://localhost/api/token", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ uid: BENCH_PLATFORM, pw: BENCH_PASSWORD }) }));
    const { token } = (await login.json()) as { token: string };
    const headers = { authorization: `Bearer ${token}`, "content-type": "application/json" };
    // 23:30 UTC with a drop-off ~15 km north: routes, distance rates and the night window all looked at.
    const pickupTime = `${new Date(Date.now() + 30 * 86400_000).toISOString().slice(0, 10)}T23:30:00`;
    const body = (c: Record<string, string>) =>
      JSON.stringify({
        passengerCount: "2",
        locations: {
          pickup: { locationType: "address", address: "bench pickup", lat: c.lat, lon: c.lon, time: pickupTime },
          dropOff: { address: "bench drop-off", lat: (Number(c.lat) + 0.135).toFixed(5), lon: c.lon },
        },
      });
    const p50 = { plain: [] as number[], carded: [] as number[] };
    const p99 = { plain: [] as number[], carded: [] as number[] };
    const cpu = { plain: [] as number[], carded: [] as number[] };
    let sample = { options: 0, lines: 0 };
    // Warm-up (one of each), then runs alternating; the same pickups in each pair of runs.
    for (let run = 0; run <= options.runs; run++)
      for (const kind of ["plain", "carded"] as const) {
        await cardsOn(kind === "carded");
        const centres = searchQueries(options.requests, VARIANTS[0], 200 + run);
        const cpuTimes: number[] = [];
        const times = await timedEach(
          centres.map((c) => () => app.handle(new Request("http://localhost/api/quotes", { method: "POST", headers, body: body(c) }))),
          cpuTimes,
        );
        if (run === 0) {
          if (kind === "carded") {
            const res = await app.handle(new Request("http://localhost/api/quotes", { method: "POST", headers, body: body(centres[0]) }));
            const options = ((await res.json()) as { data: { options: Array<{ breakdown: unknown[] }> } }).data.options;
            sample = { options: options.length, lines: options.reduce((n, o) => n + o.breakdown.length, 0) };
          }
          continue;
        }
        p50[kind].push(percentile(times, 50));
        p99[kind].push(percentile(times, 99));
        cpu[kind].push(percentile(cpuTimes, 50));
      }
    const label = `${options.size.toLocaleString("en-US")} vehicles, ${options.providers.toLocaleString("en-US")} providers, every one with a card`;
    const ratio = median(p50.carded) / median(p50.plain);
    const figures: Figure[] = [
      {
        part: "network-quote-cards",
        name: `POST /api/quotes p50 with rate cards at ${label} (in process, app.handle)`,
        unit: "ms",
        measured: p50.carded,
        baseline: { name: "the same quotes without cards, alternate runs of the same run", runs: p50.plain },
        better: "lower",
        target: { ratio: 1.25, text: "≤ 1.25× the no-card figure (median), docs/performance.md#rate-cards-issue-35" },
        note: `medians ${median(p50.carded).toFixed(2)} ms vs ${median(p50.plain).toFixed(2)} ms (×${ratio.toFixed(2)}); a sample quote held ${sample.options} option(s), ${sample.lines} breakdown line(s)`,
      },
      {
        part: "network-quote-cards",
        name: `POST /api/quotes p99 with rate cards at ${label}`,
        unit: "ms",
        measured: p99.carded,
        baseline: { name: "the same quotes without cards", runs: p99.plain },
        better: "lower",
      },
      {
        part: "network-quote-cards",
        name: `POST /api/quotes CPU time per request, p50, with rate cards at ${label}`,
        unit: "ms",
        measured: cpu.carded,
        baseline: { name: "the same quotes without cards", runs: cpu.plain },
        better: "lower",
      },
    ];
    for (const f of figures) printFigure(f);
    return figures;
  } finally {
    await checkpointer.stop();
    await services.worker.stop();
    services.fleetIndex.close();
    db.$client.close();
    for (const suffix of ["", "-wal", "-shm"]) rmSync(path + suffix, { force: true });
  }
}

if (import.meta.main) await benchNetworkQuoteCards();
