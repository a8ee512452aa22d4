// `npm run bench:blackout-flood` (docs/availability.md#what-a-quote-reads): another tenant's quote latency beside a
// provider holding 10,000 blackouts, against the same quotes in a quiet run, in the same run. Through the whole HTTP
// app in process (app.handle) on an SQLite file: a requester quotes a quiet provider (a sendTrip QUOTE and a network
// quote naming it) while a flooding provider with vehicles at the same airport keeps 10,000 live blackouts over the
// trips' hours (200 on each of 50 vehicles, the limits). Rounds alternate a quiet phase (the flooder holds one
// blackout) and the flood (its 10,000 written at once, removed after); in both, before each pair of the requester's
// quotes, the flooder removes one of its blackouts and adds it back through the API (each change makes the flooder's
// holds be read again), so the phases differ only in the blackouts held. Each round's p99 of each kind; the figures
// are the medians over the rounds. Bounded: a few hundred quotes a round, stopped past 100 s.
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { migrate, openDatabase } from "../adapters/sqlite/db";
import { createLogger } from "../adapters/logging";
import { BLACKOUT_LIMITS } from "../domain/fleet/holds";
import { buildApp } from "../src/app";
import { createServices } from "../src/services";
import { BENCH_DIR, removeDatabase, closeBenchService } from "./fixtures";
import { median, percentile, printFigure, SMOKE, type Figure } from "./report";

export interface BlackoutFloodOptions {
  /** The flooding provider's vehicles, each with `perVehicle` blackouts. */
  vehicles: number;
  perVehicle: number;
  /** Quotes of each kind per phase, and rounds (each a quiet phase and a flood phase). */
  quotes: number;
  rounds: number;
}

export const DEFAULT_BLACKOUT_FLOOD_OPTIONS: BlackoutFloodOptions = SMOKE
  ? { vehicles: 5, perVehicle: 20, quotes: 10, rounds: 2 }
  : { vehicles: 50, perVehicle: BLACKOUT_LIMITS.perVehicle, quotes: 120, rounds: 5 };

const LIMIT_MS = 100_000;
const PASSWORD = "correct horse battery staple";
const JFK = { lat: 40.645, lon: -73.78 };

export async function benchBlackoutFlood(options: BlackoutFloodOptions = DEFAULT_BLACKOUT_FLOOD_OPTIONS): Promise<Figure[]> {
  const started = performance.now();
  mkdirSync(BENCH_DIR, { recursive: true });
  const path = join(BENCH_DIR, `blackout-flood-${process.pid}.sqlite`);
  removeDatabase(path);
  const db = openDatabase(path);
  migrate(db);
  // Lifted as a high-volume deployment would: the requester quotes far more than 2,000 times an hour here.
  const services = createServices(db, {
    jwtSecret: "bench-secret-that-is-at-least-32-bytes!",
    tokenTtlSeconds: 3600,
    rateLimits: { searchPerMinute: 0, sendTripPerMinute: 0, registrationsPerHour: 0, writesPerMinute: 0 },
    storeBounds: { quotesPerHour: 1_000_000, quoteKeptBytes: 1e12 },
  });
  const app = buildApp(services, { logger: createLogger("silent"), maxBodyBytes: 1048576, readiness: { ready: true } });
  const call = async (method: string, route: string, body: unknown, headers: Record<string, string> = {}) => {
    const res = await app.handle(
      new Request(`http://localhost${route}`, { method, headers: { "content-type": "application/json", ...headers }, body: body === undefined ? undefined : JSON.stringify(body) }),
    );
    const text = await res.text();
    if (res.status >= 300) throw new Error(`${method} ${route}: ${res.status} ${text.slice(0, 300)}`);
    return JSON.parse(text);
  };
  const register = async (netid: string, coType: string, n: number) => {
    const form = { name: netid, netid, mainEmail: `ops@${netid.toLowerCase()}.example`, password: PASSWORD, confirmPassword: PASSWORD, mainPhone: `+1212555${1000 + n}`, coType };
    await call("POST", "/api/company/register", form);
    const jwt = (await call("POST", "/api/token", { uid: netid, pw: PASSWORD })).token as string;
    const token = (await call("POST", "/Platform.svc/getToken2", { uid: netid, pw: PASSWORD })) as string;
    return { netid, jwt, token };
  };
  const car = (i: number) => ({ type: "SEDAN", name: `Car ${i}`, maxPassengers: 4, minimum_rate: 50, hourly_rate: 40 + (i % 30), lat: JFK.lat + (i % 10) * 0.002, lon: JFK.lon });
  try {
    const tenant = await register("FLOOD-BOOK", "CO", 0);
    const quiet = await register("FLOOD-QUIET", "IO", 1);
    const flooder = await register("FLOOD-OPS", "IO", 2);
    for (let i = 0; i < 20; i++) await call("POST", "/api/fleet", car(i), { authorization: `Bearer ${quiet.jwt}` });
    const slugs: string[] = [];
    for (let i = 0; i < options.vehicles; i++) slugs.push((await call("POST", "/api/fleet", car(i), { authorization: `Bearer ${flooder.jwt}` })).data.slug);
    await services.fleetIndex.rebuildNow();

    const day = new Date(Date.now() + 30 * 86_400_000).toISOString().slice(0, 10);
    const trip = { passengerCount: "2", locations: { pickup: { locationType: "airport", address: "JFK", time: `${day}T08:00:00` } } };
    const dayStart = Math.floor(Date.parse(`${day}T00:00:00Z`) / 1000);
    const now = Math.floor(Date.now() / 1000);
    // The flood: every vehicle's blackouts overlap the trips' hours (each one day long, a minute apart).
    const insert = db.$client.query(
      "INSERT INTO vehicle_holds (id, slug, provider_netid, kind, transaction_id, starts_at, ends_at, reason, created_at) VALUES (?, ?, ?, 'BLACKOUT', NULL, ?, ?, 'flood', ?)",
    );
    /** Writes the flooder's blackouts: `perVehicle` on each vehicle (the flood), or one (the quiet phase). */
    const hold = db.$client.transaction((perVehicle: number, vehicles: string[]) => {
      removable = [];
      for (const slug of vehicles)
        for (let k = 0; k < perVehicle; k++) {
          insert.run(`${slug}-flood-${k}`, slug, flooder.netid, dayStart - 86_400 + k * 60, dayStart + 86_400 + k * 60, now);
          removable.push({ slug, id: `${slug}-flood-${k}` });
        }
    });
    const drain = () => db.$client.query("DELETE FROM vehicle_holds WHERE provider_netid = ? AND kind = 'BLACKOUT'").run(flooder.netid);

    let resNo = 0;
    const sendTripQuote = async () => {
      const t0 = performance.now();
      const answer = await call(
        "POST",
        "/Platform.svc/sendTrip/V1",
        {
          reservationType: "QUOTE",
          ...trip,
          passengers: [{ firstName: "Ada", lastName: "Lovelace" }],
          affiliateReservation: { requesterId: tenant.netid, requesterResNo: `FQ-${++resNo}`, providerId: quiet.netid, action: "NEW" },
        },
        { token: tenant.token },
      );
      if ((answer.fees as unknown[]).length === 0) throw new Error("the quiet provider's QUOTE offered nothing");
      return performance.now() - t0;
    };
    const networkQuote = async () => {
      const t0 = performance.now();
      const answer = await call("POST", "/api/quotes", { ...trip, providers: [quiet.netid] }, { authorization: `Bearer ${tenant.jwt}` });
      if (answer.data.options.length === 0) throw new Error("the quiet provider's network quote offered nothing");
      return performance.now() - t0;
    };
    let churned = 0;
    /** Blackouts the flooder may remove (its stored ones, then those it adds back). */
    let removable: Array<{ slug: string; id: string }> = [];
    /**
     * The flooder, at its limits, removes one blackout and adds one back through the API (each change makes its own
     * holds be read again): it keeps holding the flood.
     */
    const churn = async () => {
      const auth = { authorization: `Bearer ${flooder.jwt}` };
      const { slug, id } = removable.pop()!;
      await call("DELETE", `/api/fleet/${slug}/blackouts/${id}`, undefined, auth);
      const from = new Date((dayStart - 86_400) * 1000).toISOString().replace(".000", "");
      const to = new Date((dayStart + 2 * 86_400) * 1000).toISOString().replace(".000", "");
      const added = await call("POST", `/api/fleet/${slug}/blackouts`, { from, to, reason: "flood" }, auth);
      removable.unshift({ slug, id: added.data.id });
      churned++;
    };
    const phase = async () => {
      const single: number[] = [];
      const network: number[] = [];
      for (let i = 0; i < options.quotes; i++) {
        if (performance.now() - started > LIMIT_MS) throw new Error(`blackout-flood: past ${LIMIT_MS / 1000} s, stopped`);
        await churn();
        single.push(await sendTripQuote());
        network.push(await networkQuote());
      }
      return { single, network };
    };

    // Warm-up: both paths compiled, the providers' copies read.
    for (let i = 0; i < 20; i++) {
      await sendTripQuote();
      await networkQuote();
    }
    const rounds = { quietSingle: [] as number[], floodSingle: [] as number[], quietNetwork: [] as number[], floodNetwork: [] as number[] };
    const all = { quietSingle: [] as number[], floodSingle: [] as number[] };
    let held = 0;
    for (let r = 0; r < options.rounds; r++) {
      hold(1, slugs.slice(0, 1));
      const q = await phase();
      drain();
      hold(options.perVehicle, slugs);
      held = Number(db.$client.query<{ n: number }, [string]>("SELECT count(*) AS n FROM vehicle_holds WHERE provider_netid = ? AND kind = 'BLACKOUT'").get(flooder.netid)!.n);
      const f = await phase();
      drain();
      rounds.quietSingle.push(percentile(q.single, 99));
      rounds.floodSingle.push(percentile(f.single, 99));
      rounds.quietNetwork.push(percentile(q.network, 99));
      rounds.floodNetwork.push(percentile(f.network, 99));
      all.quietSingle.push(...q.single);
      all.floodSingle.push(...f.single);
    }
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    const common = `${held.toLocaleString("en-US")} live blackouts of the flooder (${options.vehicles} vehicles × ${options.perVehicle}), ${churned} blackouts removed and added back by it between the quotes (the same in both phases); ${options.rounds} rounds of ${options.quotes} quotes a kind and phase; ${seconds} s in all`;
    const figures: Figure[] = [
      {
        part: "blackout-flood",
        name: `another provider's QUOTE (sendTrip) p99 beside a provider holding ${held.toLocaleString("en-US")} blackouts (in-process HTTP pipeline)`,
        unit: "ms",
        measured: rounds.floodSingle,
        baseline: { name: "the same QUOTEs, the flooder holding one blackout (quiet)", runs: rounds.quietSingle },
        better: "lower",
        target: { ratio: 1.2, text: "≤ 1.2× the quiet run's p99 (median of the rounds)" },
        note: `median latency ${median(all.floodSingle).toFixed(2)} ms vs ${median(all.quietSingle).toFixed(2)} ms quiet; ${common}`,
      },
      {
        part: "blackout-flood",
        name: `another provider's network quote (POST /api/quotes naming it) p99 beside a provider holding ${held.toLocaleString("en-US")} blackouts`,
        unit: "ms",
        measured: rounds.floodNetwork,
        baseline: { name: "the same network quotes, the flooder holding one blackout (quiet)", runs: rounds.quietNetwork },
        better: "lower",
        target: { ratio: 1.2, text: "≤ 1.2× the quiet run's p99 (median of the rounds)" },
      },
    ];
    for (const f of figures) printFigure(f);
    return figures;
  } finally {
    await closeBenchService(services, db, path);
  }
}

if (import.meta.main) await benchBlackoutFlood();
