import { Database } from "bun:sqlite";
import { join } from "node:path";
import { postJson, startServer, tempDir, type RunningServer } from "../support/process";
import { startReceiver } from "../support/receiver";
import { regularTrip } from "../support/trips";
import { mulberry32 } from "../../src/demo/fleet";

/**
 * Crash consistency (issue 7): concurrent sendTrip NEW load against the real service process, SIGKILL at random
 * moments, restart, and retry of every unacknowledged request with the same requesterResNo and body.
 */
export interface CrashOptions {
  cycles: number;
  /** Concurrent clients during each cycle. */
  clients: number;
  /** The kill comes this many ms (uniformly random in the range) after the load starts. */
  killAfterMs: [number, number];
  seed: number;
  /** How long the final deliveries may take to arrive. */
  deliveryTimeoutMs: number;
  log?: (line: string) => void;
  /** The service runs on this PostgreSQL database (empty, migrated by the service) instead of an SQLite file. */
  databaseUrl?: string;
}

export interface CrashReport {
  cycles: number;
  sent: number;
  acknowledged: number;
  retried: number;
  /** Trips committed by a killed process before it could answer: their retry must find them, not add them. */
  committedUnanswered: number;
  lost: number;
  duplicated: number;
  /** Acknowledged trips whose stored transactionId differs from the acknowledged one. */
  changed: number;
  integrity: string;
  bookings: number;
  deliveredBookings: number;
  /** Bookings announced to the provider under more than one event id (a duplicate outbox message). */
  duplicateDeliveries: number;
  /** The same event id received again (allowed: delivery is at least once; the partner de-duplicates). */
  redelivered: number;
  pendingDeliveries: number;
}

/** Reads the service's database while no process runs (the SQLite file read-only, or PostgreSQL). */
interface Peek {
  all<T>(query: string, ...args: string[]): Promise<T[]>;
  /** SQLite's integrity check; PostgreSQL (never killed here) answers "ok". */
  integrity(): Promise<string>;
  close(): Promise<void>;
}

function sqlitePeek(path: string): Peek {
  const db = new Database(path, { readonly: true });
  return {
    all: async <T>(query: string, ...args: string[]) => db.query(query).all(...args) as T[],
    integrity: async () => db.query<{ integrity_check: string }, []>("PRAGMA integrity_check").get()!.integrity_check,
    close: async () => db.close(),
  };
}

function pgPeek(url: string): Peek {
  const client = new Bun.SQL(url, { max: 1 });
  return {
    all: async <T>(query: string, ...args: string[]) => {
      let n = 0;
      const rows = (await client.unsafe(query.replace(/\?/g, () => `$${++n}`), args)) as T[];
      // count(*) is int8 on PostgreSQL: a string from Bun's client.
      return rows.map((r) => Object.fromEntries(Object.entries(r as object).map(([k, v]) => [k, k === "n" ? Number(v) : v])) as T);
    },
    integrity: async () => "ok",
    close: () => client.close(),
  };
}

const PASSWORD = "correct horse battery staple";
const JWT_SECRET = "crash-test-secret-that-is-at-least-32-bytes";

/** A seeded PRNG (the demo fleet's mulberry32), so a failing run can be repeated with its seed. */
const random = mulberry32;

export async function runCrashCycles(options: CrashOptions): Promise<CrashReport> {
  const log = options.log ?? (() => {});
  const rnd = random(options.seed);
  const dir = tempDir("tripswitch-crash-");
  const dbPath = join(dir, "db.sqlite");
  // On PostgreSQL a killed process's claimed messages pass to the next one when their lease ends: a short lease here.
  const where: Record<string, string> = options.databaseUrl
    ? { DATABASE_URL: options.databaseUrl, DB_PATH: join(dir, "index.db"), DELIVERY_LEASE_SECONDS: "2" }
    : { DB_PATH: dbPath };
  const peek = () => (options.databaseUrl ? pgPeek(options.databaseUrl) : sqlitePeek(dbPath));
  const env = { ...where, DEMO_DATA: "0", JWT_SECRET, RATE_LIMIT_SENDTRIP_PER_MIN: "0" };

  // The provider's endpoint: counts event ids per booking; answers with a reservation number.
  const eventsByBooking = new Map<string, Set<string>>();
  const seenEvents = new Set<string>();
  let redelivered = 0;
  const receiver = startReceiver((r) => {
    const eventId = r.headers["x-tripswitch-event-id"] ?? r.json?.eventId;
    if (seenEvents.has(eventId)) redelivered++;
    seenEvents.add(eventId);
    const id = r.json?.transactionId;
    if (r.json?.affiliateReservation?.action === "NEW" && id) eventsByBooking.set(id, (eventsByBooking.get(id) ?? new Set()).add(eventId));
    return Response.json({ reservationId: `P-${r.json?.affiliateReservation?.requesterResNo}` });
  });

  let server: RunningServer = await startServer(env);
  const register = (netid: string, coType: string, phone: string) =>
    postJson(`${server.base}/api/company/register`, { name: netid, netid, mainEmail: `${netid.toLowerCase()}@crash.example`, password: PASSWORD, confirmPassword: PASSWORD, mainPhone: phone, coType });
  try {
    for (const [netid, type, phone] of [["CRASH-REQ", "CO", "+12125550181"], ["CRASH-OPS", "IO", "+12125550182"]]) {
      const res = await register(netid, type, phone);
      if (res.status !== 200) throw new Error(`registration failed: ${res.status} ${JSON.stringify(res.body)}`);
    }
    const jwt = (await postJson(`${server.base}/api/token`, { uid: "CRASH-OPS", pw: PASSWORD })).body.token;
    const put = await fetch(`${server.base}/api/company/integration`, {
      method: "PUT",
      headers: { authorization: `Bearer ${jwt}`, "content-type": "application/json" },
      body: JSON.stringify({ deliveryUrl: `${receiver.url}/farm-in` }),
    });
    if (put.status !== 200) throw new Error(`integration failed: ${put.status}`);
    // Platform tokens are stored in the database: the same token works after every restart.
    const token = (await postJson(`${server.base}/Platform.svc/getToken2`, { uid: "CRASH-REQ", pw: PASSWORD })).body as string;

    const bodies = new Map<string, unknown>(); // requesterResNo → the exact body sent (retries repeat it)
    const acknowledged = new Map<string, string>(); // requesterResNo → transactionId answered
    const unacknowledged = new Set<string>();
    const committedBeforeRetry = new Map<string, string>(); // requesterResNo → transactionId found after a restart
    let sent = 0;
    let retried = 0;
    let fresh = 0;

    const nextTrip = (): string => {
      for (const resNo of unacknowledged) {
        unacknowledged.delete(resNo);
        retried++;
        return resNo;
      }
      const body = regularTrip("CRASH-REQ", "CRASH-OPS", {}, { requesterResNo: `CR-${options.seed}-${++fresh}` });
      const resNo = body.affiliateReservation.requesterResNo as string;
      bodies.set(resNo, body);
      return resNo;
    };

    /** One client: sends trips until told to stop or the server dies; unanswered trips go back to the retry set. */
    const client = async (base: string, stop: { now: boolean }, maxRequests: number) => {
      for (let i = 0; i < maxRequests && !stop.now; i++) {
        const resNo = nextTrip();
        sent++;
        let res: Awaited<ReturnType<typeof postJson>>;
        try {
          res = await postJson(`${base}/Platform.svc/sendTrip/V1`, bodies.get(resNo), { token });
        } catch {
          // No answer: the server died under the request. Retry it after the restart.
          unacknowledged.add(resNo);
          return;
        }
        // A live server answers every trip, first try or retry, with 200 and one transactionId per requesterResNo.
        if (res.status !== 200) throw new Error(`${resNo}: status ${res.status}: ${JSON.stringify(res.body)}`);
        const previous = acknowledged.get(resNo);
        if (previous && previous !== res.body.transactionId) throw new Error(`retry of ${resNo} answered another transactionId`);
        const committed = committedBeforeRetry.get(resNo);
        if (committed && committed !== res.body.transactionId) throw new Error(`retry of ${resNo} created a new booking instead of finding ${committed}`);
        acknowledged.set(resNo, res.body.transactionId);
      }
    };

    for (let cycle = 1; cycle <= options.cycles; cycle++) {
      const stop = { now: false };
      const base = server.base;
      const load = Promise.all(Array.from({ length: options.clients }, () => client(base, stop, 400)));
      const [lo, hi] = options.killAfterMs;
      await Bun.sleep(lo + Math.floor(rnd() * (hi - lo)));
      server.proc.kill("SIGKILL");
      await server.proc.exited;
      stop.now = true;
      await load;
      log(`cycle ${cycle}: killed; ${acknowledged.size} acknowledged so far, ${unacknowledged.size} to retry`);
      server = await startServer(env);
      // Which unanswered trips did the dead process commit? Their retries must answer the same transactionId.
      const db = peek();
      for (const resNo of unacknowledged) {
        const [row] = await db.all<{ id: string }>("SELECT transaction_id AS id FROM bookings WHERE requester_res_no = ?", resNo);
        if (row) committedBeforeRetry.set(resNo, row.id);
      }
      await db.close();
    }

    // After the last restart: retry everything still unacknowledged until it is.
    const stop = { now: false };
    for (let round = 0; round < 5 && unacknowledged.size; round++) await Promise.all(Array.from({ length: options.clients }, () => client(server.base, stop, unacknowledged.size)));
    if (unacknowledged.size) throw new Error(`${unacknowledged.size} trips still unacknowledged after the final restart`);

    // Every booking's delivery arrives (the worker resumes its pending messages after each restart).
    const db = peek();
    const stored = await db.all<{ res: string; id: string }>("SELECT requester_res_no AS res, transaction_id AS id FROM bookings");
    const deadline = Date.now() + options.deliveryTimeoutMs;
    const pending = async () => (await db.all<{ n: number }>("SELECT count(*) AS n FROM outbox_messages WHERE status <> 'delivered'"))[0].n;
    while (Date.now() < deadline && stored.some((b) => !eventsByBooking.has(b.id))) await Bun.sleep(50);
    // A message a killed process sent but could not mark is sent again (and marked) by the next one.
    while (Date.now() < deadline && (await pending()) > 0) await Bun.sleep(200);
    await Bun.sleep(200);
    const pendingDeliveries = await pending();
    await db.close();

    const stop2 = await server.stop();
    if (stop2 !== 0) log(`final stop exited with ${stop2}`);
    const check = peek();
    const integrity = await check.integrity();
    const counts = new Map<string, number>();
    for (const row of await check.all<{ res: string; n: number }>("SELECT requester_res_no AS res, count(*) AS n FROM bookings GROUP BY requester_res_no")) counts.set(row.res, row.n);
    const ids = new Map((await check.all<{ res: string; id: string }>("SELECT requester_res_no AS res, transaction_id AS id FROM bookings")).map((r) => [r.res, r.id]));
    await check.close();

    const report: CrashReport = {
      cycles: options.cycles,
      sent,
      acknowledged: acknowledged.size,
      retried,
      committedUnanswered: committedBeforeRetry.size,
      lost: [...acknowledged.keys()].filter((res) => !counts.has(res)).length,
      duplicated: [...counts.values()].filter((n) => n > 1).length,
      changed: [...acknowledged].filter(([res, id]) => ids.has(res) && ids.get(res) !== id).length,
      integrity,
      bookings: stored.length,
      deliveredBookings: stored.filter((b) => eventsByBooking.has(b.id)).length,
      duplicateDeliveries: [...eventsByBooking.values()].filter((events) => events.size > 1).length,
      redelivered,
      pendingDeliveries,
    };
    log(
      `crash: ${report.cycles} cycles, ${report.sent} requests (${report.retried} retries, ${report.committedUnanswered} of them committed before the kill), ${report.acknowledged} acknowledged, lost=${report.lost}, duplicated=${report.duplicated}, ` +
        `changed=${report.changed}, integrity=${report.integrity}; deliveries: ${report.deliveredBookings}/${report.bookings} bookings delivered, ` +
        `${report.duplicateDeliveries} announced twice, ${report.redelivered} redelivered (at least once), ${report.pendingDeliveries} pending`,
    );
    return report;
  } finally {
    if (server.proc.exitCode === null) server.proc.kill("SIGKILL");
    receiver.stop();
  }
}

/** Read access to the service's database from the test (`?` placeholders). */
export interface Store {
  all<T>(sql: string, ...args: unknown[]): Promise<T[]>;
  close(): Promise<void>;
}

export function sqliteStore(path: string): Store {
  return {
    async all<T>(sql: string, ...args: unknown[]) {
      const d = new Database(path, { readonly: true });
      try {
        return d.query(sql).all(...(args as never[])) as T[];
      } finally {
        d.close();
      }
    },
    async close() {},
  };
}

export function pgStore(url: string): Store {
  const client = new Bun.SQL(url, { max: 1 });
  return {
    async all<T>(sql: string, ...args: unknown[]) {
      let n = 0;
      return [...((await client.unsafe(sql.replace(/\?/g, () => `$${++n}`), args)) as T[])];
    },
    close: () => client.close(),
  };
}

/** The end of a crash test's run: the service killed if it still runs, the receiver stopped, the store and the cluster closed. */
export async function endCrashRun(server: RunningServer, receiver: { stop(): void }, store: Store, pg?: { stop(): Promise<unknown> }): Promise<void> {
  if (server.proc.exitCode === null) server.proc.kill("SIGKILL");
  await server.proc.exited;
  receiver.stop();
  await store.close();
  await pg?.stop();
}
