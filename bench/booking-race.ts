// Part: the booking race (docs/availability.md#booking-a-quoted-vehicle-that-became-busy). N concurrent bookings of one quoted vehicle for one hour, through the whole
// HTTP app in process (app.handle) on a fresh SQLite file: exactly one is booked, the others are 409
// VEHICLE_UNAVAILABLE. Timed per race against a same-run baseline: N concurrent bookings of N distinct vehicles.
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { migrate, openDatabase } from "../adapters/sqlite/db";
import { createLogger } from "../adapters/logging";
import { buildApp } from "../src/app";
import { createServices } from "../src/services";
import { BENCH_DIR, removeDatabase } from "./fixtures";
import { printFigure, SMOKE, type Figure } from "./report";

export interface BookingRaceOptions {
  /** Bookings per race. */
  racers: number;
  races: number;
}

export const DEFAULT_BOOKING_RACE_OPTIONS: BookingRaceOptions = SMOKE ? { racers: 8, races: 3 } : { racers: 40, races: 15 };

export async function benchBookingRace(options: BookingRaceOptions = DEFAULT_BOOKING_RACE_OPTIONS): Promise<Figure[]> {
  mkdirSync(BENCH_DIR, { recursive: true });
  const path = join(BENCH_DIR, `booking-race-${process.pid}.sqlite`);
  removeDatabase(path);
  const db = openDatabase(path);
  migrate(db);
  const services = createServices(db, { jwtSecret: "bench-secret-that-is-at-least-32-bytes!", tokenTtlSeconds: 3600 });
  const app = buildApp(services, { logger: createLogger("silent"), maxBodyBytes: 1048576, readiness: { ready: true } });
  const call = async (method: string, path: string, body: unknown, auth?: string) => {
    const headers: Record<string, string> = { "content-type": "application/json", ...(auth ? { authorization: `Bearer ${auth}` } : {}) };
    const res = await app.handle(new Request(`http://localhost${path}`, { method, headers, body: JSON.stringify(body) }));
    return { status: res.status, body: (await res.json()) as any };
  };
  const register = async (netid: string, coType: string, n: number) => {
    const password = "correct horse battery staple";
    const phone = `+1212555${String(1000 + n)}`;
    const mainEmail = `ops@${netid.toLowerCase()}.example`;
    const made = await call("POST", "/api/company/register", { name: netid, netid, mainEmail, password, confirmPassword: password, mainPhone: phone, coType });
    if (made.status !== 200) throw new Error(`register ${netid}: ${made.status}`);
    return (await call("POST", "/api/token", { uid: netid, pw: password })).body.token as string;
  };
  try {
    const booker = await register("RACE-BOOK", "CO", 0);
    // One car per provider (a network quote offers at most 5 per provider): quote i's option i is a distinct car.
    for (let i = 0; i < options.racers; i++) {
      const op = await register(`RACE-OPS-${i}`, "IO", i + 1);
      const car = { type: "SEDAN", name: `Car ${i}`, maxPassengers: 3, minimum_rate: 50, hourly_rate: 40 + i, lat: 40.645, lon: -73.78 };
      if ((await call("POST", "/api/fleet", car, op)).status !== 200) throw new Error("adding a car failed");
    }
    await services.fleetIndex.rebuildNow();
    let resNo = 0;
    const day = (n: number) => new Date(Date.now() + (30 + n) * 86400_000).toISOString().slice(0, 10);
    const quotes = async (date: string) => {
      const trip = { passengerCount: "2", locations: { pickup: { locationType: "airport", address: "JFK", time: `${date}T08:00:00` } } };
      return Promise.all(Array.from({ length: options.racers }, () => call("POST", "/api/quotes", trip, booker).then((r) => r.body.data)));
    };
    /** Books option `pick(i)` of quote i, all at once; the wall time and the statuses. */
    const race = async (made: any[], pick: (i: number) => number) => {
      const started = performance.now();
      const answers = await Promise.all(
        made.map((q, i) =>
          call(
            "POST",
            `/api/quotes/${q.quoteId}/book`,
            { quoteOptionId: q.options[pick(i)].quoteOptionId, requesterResNo: `RACE-${++resNo}`, passengers: [{ firstName: "A", lastName: "B" }] },
            booker,
          ),
        ),
      );
      return { ms: performance.now() - started, statuses: answers.map((a) => a.status) };
    };
    const raced: number[] = [];
    const baseline: number[] = [];
    for (let r = 0; r < options.races; r++) {
      const one = await race(await quotes(day(2 * r)), () => 0);
      const won = one.statuses.filter((s) => s === 200).length;
      if (won !== 1 || one.statuses.some((s) => s !== 200 && s !== 409)) throw new Error(`race ${r}: ${won} bookings won (${one.statuses.join(",")})`);
      const all = await race(await quotes(day(2 * r + 1)), (i) => i);
      if (all.statuses.some((s) => s !== 200)) throw new Error(`baseline ${r}: ${all.statuses.join(",")}`);
      raced.push(one.ms);
      baseline.push(all.ms);
    }
    const figure: Figure = {
      part: "booking-race",
      name: `${options.racers} concurrent bookings of one vehicle → exactly one booking, per race`,
      unit: "ms",
      measured: raced,
      baseline: { name: `${options.racers} concurrent bookings of distinct vehicles`, runs: baseline },
      better: "lower",
      target: { ratio: 1.25, text: "exactly one booking; within 1.25× of the baseline" },
    };
    printFigure(figure);
    return [figure];
  } finally {
    await services.worker.stop();
    db.$client.close();
    removeDatabase(path);
  }
}

if (import.meta.main) await benchBookingRace();
