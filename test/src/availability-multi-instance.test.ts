// Two `serve` processes on one PostgreSQL: bookings of one quoted vehicle for one hour, raced through both instances
// at once, give exactly one booking (docs/availability.md#booking-a-quoted-vehicle-that-became-busy): the claim is decided in the database, not in either process.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { startDatabase, type TestDatabase } from "../support/pg-databases";
import { registerCompany, startServer, tempDir, type RunningServer } from "../support/process";

let cluster: TestDatabase;
const servers: RunningServer[] = [];

const env = () => ({
  DATABASE_URL: cluster.url,
  JWT_SECRET: "availability-secret-at-least-32-bytes!!",
  SECRETS_KEY: "5d".repeat(32),
  DEMO_DATA: "0",
  DB_PATH: `${tempDir("tripswitch-avail-")}/index.db`,
});

const call = async (s: RunningServer, method: string, path: string, body: unknown, headers: Record<string, string>) => {
  const res = await fetch(`${s.base}${path}`, { method, headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(body) });
  return { status: res.status, body: (await res.json()) as any };
};

beforeAll(async () => {
  cluster = await startDatabase();
  servers.push(...(await Promise.all([0, 1].map(() => startServer(env(), { timeoutMs: 60_000 })))));
}, 120_000);

afterAll(async () => {
  for (const s of servers) s.proc.kill("SIGKILL");
  await Promise.all(servers.map((s) => s.proc.exited));
  await cluster?.stop();
});

test("bookings racing for one vehicle and hour through two instances: exactly one wins, the others are 409 VEHICLE_UNAVAILABLE", async () => {
  const op = await registerCompany(servers[0], "RACE-OPS", "IO");
  const booker = await registerCompany(servers[0], "RACE-BOOK", "CO");
  const auth = { authorization: `Bearer ${booker.jwt}` };
  const added = await call(
    servers[0],
    "POST",
    "/api/fleet",
    { type: "SEDAN", name: "Only Sedan", maxPassengers: 3, minimum_rate: 50, hourly_rate: 40, lat: 40.645, lon: -73.78, airports: ["JFK"] },
    { authorization: `Bearer ${op.jwt}` },
  );
  expect(added.status).toBe(200);
  const trip = {
    passengerCount: "2",
    locations: {
      pickup: { locationType: "airport", address: "JFK", time: "2027-09-01T08:00:00" },
      dropOff: { locationType: "address", address: "200 Park Ave, New York, NY", lat: "40.7536", lon: "-73.9767" },
    },
  };
  // Each instance's geo index learns of the vehicle within a second.
  const quotes: Array<{ quoteId: string; options: Array<{ quoteOptionId: string }> }> = [];
  const deadline = Date.now() + 10_000;
  for (let i = 0; quotes.length < 8 && Date.now() < deadline; i++) {
    const q = await call(servers[i % 2], "POST", "/api/quotes", trip, auth);
    if (q.status === 200 && q.body.data.options.length === 1) quotes.push(q.body.data);
    else await Bun.sleep(50);
  }
  expect(quotes).toHaveLength(8);
  const answers = await Promise.all(
    quotes.map((q, i) =>
      call(
        servers[i % 2],
        "POST",
        `/api/quotes/${q.quoteId}/book`,
        { quoteOptionId: q.options[0].quoteOptionId, requesterResNo: `RACE-${i}`, passengers: [{ firstName: "Ada", lastName: "Lovelace" }] },
        auth,
      ),
    ),
  );
  const statuses = answers.map((a) => a.status).sort();
  expect(statuses).toEqual([200, 409, 409, 409, 409, 409, 409, 409]);
  for (const a of answers) if (a.status === 409) expect(a.body.code).toBe("VEHICLE_UNAVAILABLE");
}, 120_000);
