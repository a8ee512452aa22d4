// `npm run bench`: every part in turn, then the table of figures (median, baseline, ratio, target).
// Each part also runs alone: `npm run bench:search`, `bench:http`, `bench:intake`, `bench:freshness`, `bench:startup`,
// `bench:tracking`, `bench:postgres`, `bench:events`, `bench:quote`, `bench:growth`, `bun bench/index.ts network-quote`,
// `bun bench/index.ts fair-delivery`, `bench:quote-cards`, `bench:network-quote-cards` (rate cards, docs/performance.md#rate-cards-issue-35),
// `bun bench/index.ts places` (drop-offs and stops placed by city, docs/places.md#drop-offs-and-stops),
// `bench:statements` and `bench:statements:postgres` (a month's statements of a company with 100,000 bookings, on SQLite or
// PostgreSQL, docs/settlement.md#statements-and-settlement).
// `bench:blackout-flood` (another tenant's quotes beside a provider holding 10,000 blackouts, docs/availability.md#what-a-quote-reads).
// `bench:flights` and `bench:flights:postgres` (a status feed moving 1,000 of 10,000 pickups, docs/flights.md#the-pickup-follows-the-flight).
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { benchSearch } from "./search";
import { benchHttpSearch } from "./http-search";
import { benchIntake } from "./intake";
import { benchFreshness } from "./freshness";
import { benchStartup } from "./startup";
import { benchTracking } from "./tracking";
import { benchPostgres } from "./postgres";
import { benchEvents } from "./events";
import { benchNetworkQuote } from "./network-quote";
import { benchQuote } from "./quote";
import { benchQuoteCards } from "./quote-cards";
import { benchNetworkQuoteCards } from "./network-quote-cards";
import { benchGrowth } from "./growth";
import { benchFairDelivery } from "./fair-delivery";
import { benchBookingRace } from "./booking-race";
import { benchOffers } from "./offers";
import { benchPlaces } from "./places";
import { benchBlackoutFlood } from "./blackout-flood";
import { benchStatements } from "./statements";
import { benchFlights } from "./flights";
import { ROOT, WRK_HELP, wrkPath } from "./load";
import { markdownTable, SMOKE, type Figure } from "./report";

const PARTS: Record<string, () => Promise<Figure[]>> = {
  search: () => benchSearch(),
  http: () => benchHttpSearch(),
  intake: () => benchIntake(),
  freshness: () => benchFreshness(),
  startup: () => benchStartup(),
  tracking: () => benchTracking(),
  postgres: () => benchPostgres(),
  events: () => benchEvents(),
  "network-quote": () => benchNetworkQuote(),
  quote: () => benchQuote(),
  "quote-cards": () => benchQuoteCards(),
  "network-quote-cards": () => benchNetworkQuoteCards(),
  growth: () => benchGrowth(),
  "fair-delivery": () => benchFairDelivery(),
  "booking-race": () => benchBookingRace(),
  offers: () => benchOffers(),
  places: () => benchPlaces(),
  "blackout-flood": () => benchBlackoutFlood(),
  statements: () => benchStatements(),
  flights: () => benchFlights(),
};
const NEEDS_WRK = new Set(["http", "intake", "freshness", "postgres"]);

/** Runs the named parts (all by default) and returns their figures. */
export async function runBench(parts: string[] = Object.keys(PARTS)): Promise<Figure[]> {
  const unknown = parts.filter((p) => !(p in PARTS));
  if (unknown.length) throw new Error(`unknown bench part(s) ${unknown.join(", ")}; parts: ${Object.keys(PARTS).join(", ")}`);
  if (parts.some((p) => NEEDS_WRK.has(p)) && !wrkPath()) {
    console.error(WRK_HELP);
    process.exit(2);
  }
  const figures: Figure[] = [];
  for (const part of parts) {
    const started = performance.now();
    console.log(`\n== ${part} ==`);
    figures.push(...(await PARTS[part]()));
    console.log(`== ${part}: ${((performance.now() - started) / 1000).toFixed(1)} s ==`);
  }
  return figures;
}

if (import.meta.main) {
  const started = performance.now();
  const asked = process.argv.slice(2);
  const figures = await runBench(asked.length > 0 ? asked : undefined);
  const table = markdownTable(figures);
  console.log(`\n${table}\n\nAll parts: ${((performance.now() - started) / 1000).toFixed(0)} s on ${navigator.hardwareConcurrency} cores.`);
  if (!SMOKE) writeFileSync(join(ROOT, "bench/last-run.md"), `${mergedTable(join(ROOT, "bench/last-run.md"), figures)}\n`);
}

/** The table of `figures`, keeping the earlier rows of the parts that did not run this time (one part run alone). */
function mergedTable(path: string, figures: Figure[]): string {
  const ran = new Set(figures.map((f) => f.part));
  const fresh = markdownTable(figures).split("\n");
  if (!existsSync(path)) return fresh.join("\n");
  const partOf = (row: string) => /^\| ([^|]+?) \|/.exec(row)?.[1];
  const kept = readFileSync(path, "utf8")
    .split("\n")
    .slice(2)
    .filter((row) => row.startsWith("| ") && !ran.has(partOf(row) ?? ""));
  const order = Object.keys(PARTS);
  const rows = [...kept, ...fresh.slice(2)].map((row, i) => ({ row, i, at: order.indexOf(partOf(row) ?? "") }));
  rows.sort((a, b) => a.at - b.at || a.i - b.i);
  return [...fresh.slice(0, 2), ...rows.map((r) => r.row)].join("\n");
}
