// Part: placing the drop-off and stops (docs/places.md#drop-offs-and-stops). The same QUOTE (sendTrip, one provider)
// and the same network quote (POST /api/quotes) with the drop-off given by coordinates (the baseline), by its city
// (the gazetteer's centre), and with two stops by city as well, alternated request by request in the same run, through
// the whole HTTP pipeline in process (app.handle). No geocoder: its answers are cached, and a search is the
// geocoder's own time, not the service's.
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { buildApp } from "../src/app";
import { createServices } from "../src/services";
import { migrate, openDatabase } from "../adapters/sqlite/db";
import { createLogger } from "../adapters/logging";
import { registerCompany } from "../domain/usecases/register-company";
import { BENCH_DIR, removeDatabase } from "./fixtures";
import { DOWNTOWN, insertOwned } from "./quote";
import { median, printFigure, SMOKE, type Figure } from "./report";

const OPTIONS = SMOKE ? { vehicles: 2_000, quotes: 10, rounds: 2 } : { vehicles: 20_000, quotes: 60, rounds: 5 };
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
type Variant = "coordinates" | "city" | "stops";

/** The trip's places for a variant: the drop-off downtown by coordinates, or by city; two stops by city. */
function placesOf(variant: Variant, iata: string, time: string) {
  const byCity = { locationType: "address", address: "Main entrance", ...CITIES[iata] };
  return {
    pickup: { locationType: "airport", address: iata, time },
    dropOff: variant === "coordinates" ? { address: "downtown", ...DOWNTOWN[iata] } : byCity,
    ...(variant === "stops" ? { stops: [{ ...byCity, address: "First stop" }, { ...byCity, address: "Second stop" }] } : {}),
  };
}

export async function benchPlaces(): Promise<Figure[]> {
  mkdirSync(BENCH_DIR, { recursive: true });
  const path = join(BENCH_DIR, "places.sqlite");
  removeDatabase(path);
  const db = openDatabase(path);
  migrate(db);
  const services = createServices(db, { jwtSecret: "bench-secret-that-is-at-least-32-bytes-long", tokenTtlSeconds: 3600, storeBounds: { quotesPerHour: 1_000_000 } });
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
    const timed = async (call: () => Promise<unknown>) => {
      const t0 = performance.now();
      await call();
      return performance.now() - t0;
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

    const variants: Variant[] = ["coordinates", "city", "stops"];
    // Warm-up: the gazetteer read (its first city lookup loads it) and both paths compiled.
    for (let i = 0; i < 16; i++) for (const v of variants) (await quote(v, i), await network(v, i));
    const rounds = { quote: new Map<Variant, number[]>(), network: new Map<Variant, number[]>() };
    for (const v of variants) (rounds.quote.set(v, []), rounds.network.set(v, []));
    for (let r = 0; r < OPTIONS.rounds; r++) {
      const times = { quote: new Map<Variant, number[]>(variants.map((v) => [v, []])), network: new Map<Variant, number[]>(variants.map((v) => [v, []])) };
      // Alternated one by one, so a noisy stretch of the machine hits every variant.
      for (let i = 0; i < OPTIONS.quotes; i++)
        for (const v of variants) {
          times.quote.get(v)!.push(await quote(v, i));
          times.network.get(v)!.push(await network(v, i));
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
      for (const [v, what] of [
        ["city", "the drop-off placed by its city"],
        ["stops", "the drop-off and two stops placed by their city"],
      ] as const)
        figures.push({
          part: "places",
          name: `${label}, ${what} (in-process HTTP pipeline, pickups at ${PICKUPS.length} airports)`,
          unit: "ms",
          measured: rounds[kind].get(v)!,
          baseline: { name: "the same with the drop-off's coordinates", runs: rounds[kind].get("coordinates")! },
          better: "lower",
          target: { ratio: 1.05, text: "≤ 1.05× the drop-off by coordinates (median)" },
        });
    for (const f of figures) printFigure(f);
    return figures;
  } finally {
    await services.worker.stop();
    await services.positions.close();
    services.fleetIndex.close();
    db.$client.close();
    removeDatabase(path);
  }
}

if (import.meta.main) await benchPlaces();
