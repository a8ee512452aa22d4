// Two `serve` processes on one PostgreSQL, as behind a load balancer, each caching accounts, integrations and
// tokens in memory: a change made through one instance (or by the CLI) is honoured by the other within a second,
// and at once by the one that made it. Each kind of change is preceded by the same request on both instances, so
// both caches hold the old answer when it happens. And a NEW resent with the same requesterResNo (to either
// instance) answers the booking already made.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import example from "../../adapters/http/examples/sendtrip-new.json";
import { startDatabase, type TestDatabase } from "../support/pg-databases";
import { postJson, runCli, startServer, tempDir, type RunningServer } from "../support/process";

let cluster: TestDatabase;
const servers: RunningServer[] = [];
/** How long the other instance may take (the bound). */
const WITHIN_MS = 1000;
/** A well-formed transaction id no booking has: 404 to a valid token, 401 to a released one. */
const NO_BOOKING = "0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b";

const env = () => ({
  DATABASE_URL: cluster.url,
  JWT_SECRET: "account-cache-multi-instance-secret-at-least-32-bytes!",
  SECRETS_KEY: "5e".repeat(32),
  DEMO_DATA: "0",
  DB_PATH: `${tempDir("tripswitch-ac-")}/index.db`,
});

let phone = 1000;
async function register(s: RunningServer, netid: string, coType: "CO" | "IO") {
  const password = "correct horse battery staple";
  const res = await postJson(`${s.base}/api/company/register`, {
    name: `${netid} Ltd`,
    netid,
    mainEmail: `ops@${netid.toLowerCase()}.example`,
    password,
    confirmPassword: password,
    mainPhone: `+1212555${++phone}`,
    coType,
  });
  expect(res.status).toBe(200);
  return { netid, password };
}

async function platformToken(s: RunningServer, uid: string, pw: string): Promise<string> {
  const res = await postJson(`${s.base}/Platform.svc/getToken2`, { uid, pw });
  expect(res.status).toBe(200);
  return res.body as string;
}

async function coreToken(s: RunningServer, uid: string, pw: string): Promise<string> {
  const res = await postJson(`${s.base}/api/token`, { uid, pw });
  expect(res.status).toBe(200);
  return res.body.token as string;
}

/** GET with a bearer token: status and parsed body. */
async function get(s: RunningServer, path: string, headers: Record<string, string>) {
  const res = await fetch(`${s.base}${path}`, { headers });
  const text = await res.text();
  let body: any = text;
  try {
    body = JSON.parse(text);
  } catch {}
  return { status: res.status, body };
}

/** The page size a search applies for this token: 20 on FREE whatever was asked, the 50 asked on PROFESSIONAL. */
async function searchLimit(s: RunningServer, jwt: string): Promise<number | string> {
  const res = await get(s, "/api/search/fleet?lat=40.64&lon=-73.78&radius_km=50&limit=50", { authorization: `Bearer ${jwt}` });
  return res.status === 200 ? (res.body.data.limit as number) : `status ${res.status} ${res.body?.code ?? ""}`;
}

function newTrip(requester: string, provider: string, resNo: string) {
  const trip = structuredClone(example) as any;
  trip.affiliateReservation = { ...trip.affiliateReservation, requesterId: requester, providerId: provider, requesterResNo: resNo };
  return trip;
}

/**
 * Asks `probe` on `s` until it answers `want`, for at most WITHIN_MS after `since` (bounded in count too); the
 * elapsed time when it did. Fails with the last answer when it never did.
 */
async function within<T>(what: string, s: RunningServer, since: number, probe: (s: RunningServer) => Promise<T>, want: T): Promise<number> {
  let last: T | undefined;
  for (let i = 0; i < 400; i++) {
    last = await probe(s);
    const elapsed = performance.now() - since;
    if (Object.is(last, want) || JSON.stringify(last) === JSON.stringify(want)) return elapsed;
    if (elapsed > WITHIN_MS) break;
    await Bun.sleep(10);
  }
  throw new Error(`${what}: still ${JSON.stringify(last)} after ${WITHIN_MS} ms (wanted ${JSON.stringify(want)})`);
}

beforeAll(async () => {
  cluster = await startDatabase();
  servers.push(...(await Promise.all([0, 1].map(() => startServer(env(), { timeoutMs: 60_000 })))));
}, 120_000);

afterAll(async () => {
  await Promise.all(servers.map((s) => s.stop()));
  await cluster?.stop();
});

describe("account caches on two instances of one PostgreSQL", () => {
  test("a plan change (CLI) is honoured by both instances within a second", async () => {
    const [a, b] = servers;
    const co = await register(a, "ACPLAN", "CO");
    const jwt = await coreToken(a, co.netid, co.password);
    // Both caches hold the FREE caller.
    expect(await searchLimit(a, jwt)).toBe(20);
    expect(await searchLimit(b, jwt)).toBe(20);
    const cli = await runCli(["company", "set-plan", co.netid, "PROFESSIONAL"], { DATABASE_URL: cluster.url, DB_PATH: env().DB_PATH, SECRETS_KEY: env().SECRETS_KEY });
    expect(cli.code).toBe(0);
    const t0 = performance.now();
    expect(await within("plan on B", b, t0, (s) => searchLimit(s, jwt), 50)).toBeLessThan(WITHIN_MS);
    expect(await within("plan on A", a, t0, (s) => searchLimit(s, jwt), 50)).toBeLessThan(WITHIN_MS);
  });

  test("a removed user (CLI): its tokens stop working on both instances within a second", async () => {
    const [a, b] = servers;
    const co = await register(a, "ACGONE", "CO");
    const jwt = await coreToken(a, co.netid, co.password);
    const token = await platformToken(b, co.netid, co.password);
    const reservation = (s: RunningServer) => get(s, `/Platform.svc/getReservationByTransactionId/${NO_BOOKING}/V1`, { token }).then((r) => r.status);
    for (const s of servers) {
      expect(await searchLimit(s, jwt)).toBe(20);
      expect(await reservation(s)).toBe(404);
    }
    const cli = await runCli(["user", "remove", co.netid], { DATABASE_URL: cluster.url, DB_PATH: env().DB_PATH, SECRETS_KEY: env().SECRETS_KEY });
    expect(cli.code).toBe(0);
    const t0 = performance.now();
    for (const s of [b, a]) {
      expect(await within("removed user's JWT", s, t0, (x) => searchLimit(x, jwt), "status 404 USER_PROFILE_NOT_FOUND")).toBeLessThan(WITHIN_MS);
      expect(await within("removed user's platform token", s, t0, reservation, 401)).toBeLessThan(WITHIN_MS);
    }
  });

  test("a platform token released on A is refused on A at once and on B within a second", async () => {
    const [a, b] = servers;
    const co = await register(a, "ACREL", "CO");
    const token = await platformToken(a, co.netid, co.password);
    const reservation = (s: RunningServer) => get(s, `/Platform.svc/getReservationByTransactionId/${NO_BOOKING}/V1`, { token }).then((r) => r.status);
    expect(await reservation(a)).toBe(404);
    expect(await reservation(b)).toBe(404);
    const released = await postJson(`${a.base}/Platform.svc/releaseToken`, {}, { token });
    expect(released.status).toBe(200);
    const t0 = performance.now();
    expect(await reservation(a)).toBe(401);
    expect(await within("released platform token on B", b, t0, reservation, 401)).toBeLessThan(WITHIN_MS);
  });

  test("a core token released (signed out) on A is refused on A at once and on B within a second", async () => {
    const [a, b] = servers;
    const co = await register(a, "ACOUT", "CO");
    const jwt = await coreToken(a, co.netid, co.password);
    expect(await searchLimit(a, jwt)).toBe(20);
    expect(await searchLimit(b, jwt)).toBe(20);
    const released = await postJson(`${a.base}/api/token/release`, {}, { authorization: `Bearer ${jwt}` });
    expect(released.status).toBe(200);
    const t0 = performance.now();
    expect(await searchLimit(a, jwt)).toBe("status 401 INVALID_TOKEN");
    expect(await within("released core token on B", b, t0, (s) => searchLimit(s, jwt), "status 401 INVALID_TOKEN")).toBeLessThan(WITHIN_MS);
  });

  test("an integration changed on A (trips from partners only) is honoured on A at once and on B within a second", async () => {
    const [a, b] = servers;
    const requester = await register(a, "ACREQ", "CO");
    const provider = await register(a, "ACOPS", "IO");
    const token = await platformToken(a, requester.netid, requester.password);
    let n = 0;
    const send = async (s: RunningServer) => {
      const res = await postJson(`${s.base}/Platform.svc/sendTrip/V1`, newTrip(requester.netid, provider.netid, `AC-${Date.now()}-${++n}`), { token });
      return res.status === 200 ? 200 : `${res.status} ${res.body?.code ?? ""}`;
    };
    // Both instances have read the provider's (absent) integration: trips from anyone.
    expect(await send(a)).toBe(200);
    expect(await send(b)).toBe(200);
    const providerJwt = await coreToken(a, provider.netid, provider.password);
    const put = await fetch(`${a.base}/api/company/integration`, {
      method: "PUT",
      headers: { authorization: `Bearer ${providerJwt}`, "content-type": "application/json" },
      body: JSON.stringify({ acceptTripsFrom: "partners" }),
    });
    expect(put.status).toBe(200);
    const t0 = performance.now();
    expect(await send(a)).toBe("403 NOT_PARTNER");
    expect(await within("partners-only provider on B", b, t0, send, "403 NOT_PARTNER")).toBeLessThan(WITHIN_MS);
  });

  test("a NEW resent with the same requesterResNo answers the booking already made, on either instance; other content is 409", async () => {
    const [a, b] = servers;
    const requester = await register(a, "ACIDEM", "CO");
    const provider = await register(a, "ACIDOPS", "IO");
    const token = await platformToken(a, requester.netid, requester.password);
    const trip = newTrip(requester.netid, provider.netid, `IDEM-${Date.now()}`);
    const first = await postJson(`${a.base}/Platform.svc/sendTrip/V1`, trip, { token });
    expect(first.status).toBe(200);
    const id = first.body.transactionId as string;
    expect(id).toBeString();
    // Sequential resends, then several at once over both instances: one booking, the same answer every time.
    for (const s of [a, b]) {
      const again = await postJson(`${s.base}/Platform.svc/sendTrip/V1`, trip, { token });
      expect(again.status).toBe(200);
      expect(again.body.transactionId).toBe(id);
    }
    const racing = await Promise.all(Array.from({ length: 8 }, (_, i) => postJson(`${servers[i % 2].base}/Platform.svc/sendTrip/V1`, trip, { token })));
    expect(racing.map((r) => r.status)).toEqual(Array(8).fill(200));
    expect(new Set(racing.map((r) => r.body.transactionId))).toEqual(new Set([id]));
    // A fresh number raced on both instances: exactly one booking, every answer naming it.
    const fresh = newTrip(requester.netid, provider.netid, `IDEM2-${Date.now()}`);
    const raced = await Promise.all(Array.from({ length: 8 }, (_, i) => postJson(`${servers[i % 2].base}/Platform.svc/sendTrip/V1`, fresh, { token })));
    expect(raced.map((r) => r.status)).toEqual(Array(8).fill(200));
    expect(new Set(raced.map((r) => r.body.transactionId)).size).toBe(1);
    const changed = structuredClone(trip);
    changed.passengerCount = trip.passengerCount + 1;
    const conflict = await postJson(`${b.base}/Platform.svc/sendTrip/V1`, changed, { token });
    expect(conflict.status).toBe(409);
    expect(conflict.body.success).toBe(false);
    const read = await get(b, `/Platform.svc/getReservationByTransactionId/${id}/V1`, { token });
    expect(read.status).toBe(200);
  });
});
