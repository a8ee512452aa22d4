// Part: placing the drop-off and stops (docs/places.md#drop-offs-and-stops). The same QUOTE (sendTrip, one provider)
// and the same network quote (POST /api/quotes) with the drop-off given by its city (the gazetteer's centre) against
// the same by coordinates, and with two stops by city against the same two stops by coordinates (a trip with stops
// is a larger body to read, store and deliver whichever way they are placed), alternated request by request, through
// the whole HTTP pipeline in process (app.handle). Judged on CPU time per request (on a machine shared with other work,
// wall-clock time mostly measures the wait for a core), wall-clock p50s in the note. No geocoder: its answers are
// cached, and a search is the geocoder's own time, not the service's.
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { buildApp } from "../src/app";
import { createServices } from "../src/services";
import { migrate, openDatabase } from "../adapters/sqlite/db";
import { createLogger } from "../adapters/logging";
import { registerCompany } from "../domain/usecases/register-company";
import { BENCH_DIR, removeDatabase, closeBenchService } from "./fixtures";
import { DOWNTOWN, insertOwned } from "./quote";
import { median, percentile, printFigure, SMOKE, type Figure } from "./report";

const OPTIONS = SMOKE ? { vehicles: 2_000, quotes: 10, rounds: 2 } : { vehicles: 20_000, quotes: 100, rounds: 9 };
const PASSWORD = "bench password that is long enough";
const PROVIDER = "PLACES-OPS";
const PLATFORM = "PLACES-PLATFORM";
/** Each pickup airport with the city its downtown lies in. */
const CITIES: Record<string, { city: string; country: string }> = {
  JFK: { city: "New York", country: "US" },
  LHR: { city: "London", country: "GB" },
  ATL: { city: "Atlanta", country: "US" },
  CDG: { city: "Paris", country: "FR" },
  DXB: { city: "Dubai", country: "AE" },
  LAX: { city: "Los Angeles", country: "US" },
  HND: { city: "Tokyo", country: "JP" },
  ORD: { city: "Chicago", country: "US" },
};
const PICKUPS = Object.keys(CITIES);
type Variant = "coordinates" | "city" | "stops by coordinates" | "stops by city";

/** The trip's places for a variant: the drop-off downtown by its coordinates or by its city, with or without two stops. */
function placesOf(variant: Variant, iata: string, time: string) {
  const byCity = variant === "city" || variant === "stops by city";
  const place = (address: string) => ({ locationType: "address", address, ...(byCity ? CITIES[iata] : DOWNTOWN[iata]) });
  return {
    pickup: { locationType: "airport", address: iata, time },
    dropOff: place("Main entrance"),
    ...(variant.startsWith("stops") ? { stops: [place("First stop"), place("Second stop")] } : {}),
  };
}

export async function benchPlaces(): Promise<Figure[]> {
  mkdirSync(BENCH_DIR, { recursive: true });
  const path = join(BENCH_DIR, "places.sqlite");
  removeDatabase(path);
  const db = openDatabase(path);
  migrate(db);
  // One company asks every quote: its per-company store bounds are lifted, so that the bench measures the quotes, not the 429s.
  const storeBounds = { quotesPerHour: 1_000_000, liveEventBytes: 1_000_000_000_000 };
  const services = createServices(db, { jwtSecret: "bench-secret-that-is-at-least-32-bytes-long", tokenTtlSeconds: 3600, storeBounds });
  const app = buildApp(services, { logger: createLogger("silent"), maxBodyBytes: 1 << 20, readiness: { ready: true } });
  try {
    for (const [i, netid] of [PLATFORM, PROVIDER].entries())
      await registerCompany(services.registration, {
        netid,
        name: `Bench ${netid}`,
        coType: netid === PLATFORM ? "CO" : "IO",
        mainEmail: `places${i}@bench.example`,
        mainPhone: `+1212555${String(3000 + i)}`,
        password: PASSWORD,
        confirmPassword: PASSWORD,
      });
    insertOwned(db.$client, PROVIDER, OPTIONS.vehicles, 21);
    services.fleetIndex.fleetChanged();
    await services.fleetIndex.whenFresh();
    await services.fleetIndex.typeTreesReady();
    const post = async (path: string, headers: Record<string, string>, body: unknown) => {
      const res = await app.handle(new Request(`http://localhost${path}`, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(body) }));
      const text = await res.text();
      if (res.status !== 200) throw new Error(`${path}: ${res.status} ${text}`);
      return text;
    };
    const token = JSON.parse(await post("/Platform.svc/getToken2", {}, { uid: PLATFORM, pw: PASSWORD })) as string;
    const jwt = (JSON.parse(await post("/api/token", {}, { uid: PLATFORM, pw: PASSWORD })) as { token: string }).token;
    const time = new Date(Date.now() + 30 * 86_400_000).toISOString().slice(0, 16);
    let resNo = 0;
    const cpuMs = () => {
      const u = process.cpuUsage();
      return (u.user + u.system) / 1000;
    };
    /** One request's wall-clock and CPU milliseconds. */
    const timed = async (call: () => Promise<unknown>) => {
      const t0 = performance.now();
      const c0 = cpuMs();
      await call();
      return { ms: performance.now() - t0, cpu: cpuMs() - c0 };
    };
    const quote = (variant: Variant, i: number) =>
      timed(() =>
        post("/Platform.svc/sendTrip/V1", { token }, {
          reservationType: "QUOTE",
          passengerCount: "2",
          locations: placesOf(variant, PICKUPS[i % PICKUPS.length], time),
          passengers: [{ firstName: "Ada", lastName: "Lovelace" }],
          affiliateReservation: { requesterId: PLATFORM, requesterResNo: `P-${++resNo}`, providerId: PROVIDER, action: "NEW" },
        }),
      );
    const network = (variant: Variant, i: number) =>
      timed(() => post("/api/quotes", { authorization: `Bearer ${jwt}` }, { passengerCount: "2", locations: placesOf(variant, PICKUPS[i % PICKUPS.length], time) }));

    const variants: Variant[] = ["coordinates", "city", "stops by coordinates", "stops by city"];
    // Warm-up: the gazetteer read (its first city lookup loads it) and both paths compiled.
    for (let i = 0; i < 16; i++) for (const v of variants) (await quote(v, i), await network(v, i));
    const perVariant = () => new Map<Variant, number[]>(variants.map((v) => [v, []]));
    const rounds = { quote: perVariant(), network: perVariant() };
    const wall = { quote: perVariant(), network: perVariant() };
    for (let r = 0; r < OPTIONS.rounds; r++) {
      const times = { quote: perVariant(), network: perVariant() };
      // Alternated one by one, so a noisy stretch of the machine hits every variant; the order turns each time, as
      // the first request of a pickup finds its caches colder than the next two.
      for (let i = 0; i < OPTIONS.quotes; i++)
        for (const v of [...variants.slice(i % variants.length), ...variants.slice(0, i % variants.length)]) {
          for (const kind of ["quote", "network"] as const) {
            const t = await (kind === "quote" ? quote(v, i) : network(v, i));
            times[kind].get(v)!.push(t.cpu);
            wall[kind].get(v)!.push(t.ms);
          }
        }
      for (const v of variants) {
        rounds.quote.get(v)!.push(median(times.quote.get(v)!));
        rounds.network.get(v)!.push(median(times.network.get(v)!));
      }
    }
    const figures: Figure[] = [];
    for (const [kind, label] of [
      ["quote", `QUOTE to a provider with ${OPTIONS.vehicles.toLocaleString("en-US")} vehicles`],
      ["network", "POST /api/quotes"],
    ] as const)
      for (const [v, base, what] of [
        ["city", "coordinates", "the drop-off placed by its city"],
        ["stops by city", "stops by coordinates", "the drop-off and two stops placed by their city"],
      ] as const)
        figures.push({
          part: "places",
          name: `${label}, ${what}: CPU time per request, p50 (in-process HTTP pipeline, pickups at ${PICKUPS.length} airports)`,
          unit: "ms",
          measured: rounds[kind].get(v)!,
          baseline: { name: `the same trip by coordinates`, runs: rounds[kind].get(base)! },
          better: "lower",
          target: { ratio: 1.05, text: "≤ 1.05× the same trip by coordinates (median)" },
          note: `wall-clock p50 ${percentile(wall[kind].get(v)!, 50).toFixed(2)} ms vs ${percentile(wall[kind].get(base)!, 50).toFixed(2)} ms`,
        });
    for (const f of figures) printFigure(f);
    return figures;
  } finally {
    await closeBenchService(services, db, path);
  }
}

if (import.meta.main) await benchPlaces();
