import { join } from "node:path";
import { expect, test } from "bun:test";
import { postJson, registerCompany, startServer, tempDir, type RunningServer } from "../support/process";
import { startReceiver } from "../support/receiver";
import { vehicle } from "../support/fleet";
import { startDatabase, type TestDatabase } from "../support/pg-databases";
import { endCrashRun, pgStore, sqliteStore, type Store } from "./crash-harness";

/**
 * A moved pickup is ONE change (docs/flights.md#the-pickup-follows-the-flight): bookings holding one vehicle have their
 * pickups moved by flight statuses while the real service process is killed (kill -9) and restarted. After every
 * kill, before the restart, each booking's pickup, its terms' instants, its vehicle hold and its delivery agree: the
 * hold lies where the pickup is, the free cancellation keeps its distance to the pickup, and a booking whose flight
 * moved it has an UPDATE queued with its new time. In the end the provider received an UPDATE with each final time.
 * Run on SQLite and on PostgreSQL (a database of its own on the test cluster).
 */

// At most 10 unaccepted holding bookings per provider on the FREE plan (docs/availability.md#hold-limits).
const BOOKINGS = 8;
const JWT_SECRET = "flight-crash-secret-at-least-32-bytes-long";


interface Row {
  id: string;
  pickup: number;
  packet: string;
  starts: number | null;
  ends: number | null;
}

/** Each booking as stored: its pickup, trip packet and vehicle hold. */
const bookings = (store: Store) =>
  store.all<Row>(
    "SELECT b.transaction_id AS id, b.pickup_date AS pickup, b.trip_packet AS packet, h.starts_at AS starts, h.ends_at AS ends FROM bookings b " +
      "LEFT JOIN vehicle_holds h ON h.transaction_id = b.transaction_id AND h.kind = 'BOOKING' ORDER BY b.pickup_date",
  );

/** What must agree in one booking: the hold at the pickup, the free window's distance to it, the moved time's UPDATE queued. */
async function expectConsistent(store: Store, before: Map<string, { lead: number; length: number; window: number | null }>): Promise<number> {
  const rows = await bookings(store);
  let moved = 0;
  for (const r of rows) {
    const packet = JSON.parse(r.packet);
    const first = before.get(r.id)!;
    const pickup = Number(r.pickup);
    expect({ id: r.id, lead: Number(r.starts) - pickup, length: Number(r.ends) - Number(r.starts) }).toEqual({ id: r.id, lead: first.lead, length: first.length });
    const free = packet.terms?.freeCancellationUntil;
    expect({ id: r.id, window: free ? Date.parse(free) / 1000 - pickup : null }).toEqual({ id: r.id, window: first.window });
    const last = packet.flight?.lastMove;
    if (!last) continue;
    moved++;
    expect({ id: r.id, to: last.to }).toEqual({ id: r.id, to: pickup });
    const [update] = await store.all<{ body: string }>(
      "SELECT body FROM outbox_messages WHERE transaction_id = ? AND channel = 'delivery' AND event_type = 'trip.update' ORDER BY id DESC LIMIT 1",
      r.id,
    );
    expect({ id: r.id, sent: update ? JSON.parse(update.body).locations.pickup.time : null }).toEqual({ id: r.id, sent: packet.trip.locations.pickup.time });
  }
  return moved;
}

/** The test on one database; flight-crash.test.ts runs both at once. */
export function flightCrashTest(kind: "sqlite" | "postgres"): void {
  test.concurrent(
    `kill -9 while flights move pickups (${kind}): pickup, terms, hold and the provider's UPDATE agree after every kill`,
    async () => {
      const dir = tempDir("tripswitch-flight-crash-");
      const dbPath = join(dir, "db.sqlite");
      let pg: TestDatabase | undefined;
      const where: Record<string, string> = kind === "sqlite" ? { DB_PATH: dbPath } : { DATABASE_URL: (pg = await startDatabase()).url, DB_PATH: join(dir, "index.db") };
      const store = kind === "sqlite" ? sqliteStore(dbPath) : pgStore(pg!.url);
      const env = { ...where, DEMO_DATA: "0", JWT_SECRET, RATE_LIMIT_SENDTRIP_PER_MIN: "0", RATE_LIMIT_WRITES_PER_MIN: "0" };
      const got = new Map<string, string[]>();
      const rx = startReceiver((r) => {
        const id = r.json?.transactionId as string;
        if (r.json?.affiliateReservation?.action === "UPDATE") got.set(id, [...(got.get(id) ?? []), r.json.locations.pickup.time]);
        return Response.json({});
      });
      let server: RunningServer = await startServer(env, { timeoutMs: 60_000 });
      const checked: number[] = [];
      try {
        const requester = await registerCompany(server, "FC-REQ", "CO");
        const provider = await registerCompany(server, "FC-OPS", "IO");
        const auth = { authorization: `Bearer ${provider.jwt}`, "content-type": "application/json" };
        expect((await fetch(`${server.base}/api/fleet`, { method: "POST", headers: auth, body: JSON.stringify(vehicle({ hourly_rate: 60, minimum_rate: 0 })) })).status).toBe(200);
        const put = await fetch(`${server.base}/api/company/integration`, { method: "PUT", headers: auth, body: JSON.stringify({ deliveryUrl: `${rx.url}/ops` }) });
        expect(put.status).toBe(200);
        await Bun.sleep(1500); // the fleet index takes the new vehicle
        const bearer = { authorization: `Bearer ${requester.jwt}` };
        // Pickups 4 h apart, 2 days ahead, each 30 min after its flight's scheduled landing (UTC instants).
        const start = (Math.floor(Date.now() / 3_600_000) + 48) * 3600;
        const iso = (at: number) => new Date(at * 1000).toISOString().replace(".000Z", "Z");
        const ids: string[] = [];
        const landings = new Map<string, number>();
        for (let n = 0; n < BOOKINGS; n++) {
          const at = start + n * 4 * 3600;
          const pickup = { locationType: "airport", address: "JFK", time: iso(at), flightInfo: { airlineCode: "BA", flightNumber: String(100 + n), scheduledArrival: iso(at - 1800) } };
          const body = { passengerCount: "2", locations: { pickup, dropOff: { locationType: "address", address: "200 Park Ave, New York, NY", lat: "40.7536", lon: "-73.9767" } } };
          const q = await postJson(`${server.base}/api/quotes`, body, bearer);
          expect(q.status).toBe(200);
          const option = q.body.data.options[0];
          const booked = await postJson(
            `${server.base}/api/quotes/${q.body.data.quoteId}/book`,
            { quoteOptionId: option.quoteOptionId, requesterResNo: `FC-${n}`, passengers: [{ firstName: "Ada", lastName: "Lovelace" }] },
            bearer,
          );
          expect(booked.status).toBe(200);
          ids.push(booked.body.transactionId);
          landings.set(booked.body.transactionId, at - 1800);
        }
        const before = new Map((await bookings(store)).map((r) => [
          r.id,
          {
            lead: Number(r.starts) - Number(r.pickup),
            length: Number(r.ends) - Number(r.starts),
            window: JSON.parse(r.packet).terms?.freeCancellationUntil ? Date.parse(JSON.parse(r.packet).terms.freeCancellationUntil) / 1000 - Number(r.pickup) : null,
          },
        ]));
        expect(before.size).toBe(BOOKINGS);
        const kill = async () => {
          server.proc.kill("SIGKILL");
          await server.proc.exited;
          checked.push(await expectConsistent(store, before));
        };
        /** Sends every booking's status for a flight `late` minutes late, retried across restarts (a repeat moves nothing). */
        const round = async (late: number) => {
          const todo = [...ids];
          const giveUp = Date.now() + 90_000;
          const worker = async () => {
            for (let id = todo.shift(); id; id = todo.shift()) {
              for (;;) {
                try {
                  const res = await postJson(`${server.base}/api/reservation/${id}/flight-status`, { estimatedArrival: iso(landings.get(id)! + late * 60) }, bearer);
                  if (res.status === 200) break;
                  if (res.status < 500) throw new Error(`flight-status ${res.status} ${JSON.stringify(res.body)}`);
                } catch (err) {
                  if (String(err).includes("flight-status")) throw err;
                }
                if (Date.now() > giveUp) throw new Error(`flight status for ${id} never went through`);
                await Bun.sleep(100);
              }
            }
          };
          await Promise.all([worker(), worker(), worker()]);
        };
        // Two rounds (50 min late, then 20): kill -9 in the middle of each, restart, and let the statuses go on.
        for (const late of [50, 20]) {
          const moving = round(late);
          await Bun.sleep(120);
          await kill();
          server = await startServer(env, { timeoutMs: 60_000 });
          await moving;
        }
        await kill();
        server = await startServer(env, { timeoutMs: 60_000 });
        // Every pickup ends 20 min after its first one, and the provider was sent that time.
        const end = Date.now() + 60_000;
        const rows = await bookings(store);
        for (const r of rows) expect({ id: r.id, pickup: Number(r.pickup) }).toEqual({ id: r.id, pickup: landings.get(r.id)! + 1800 + 20 * 60 });
        const local = new Map(rows.map((r) => [r.id, JSON.parse(r.packet).trip.locations.pickup.time as string]));
        while (Date.now() < end && !ids.every((id) => got.get(id)?.includes(local.get(id)!))) await Bun.sleep(250);
        console.log(`flight crash (${kind}): ${BOOKINGS} bookings, moved at the kills: ${checked.join(", ")}`);
        for (const id of ids) expect({ id, sent: got.get(id)?.includes(local.get(id)!) }).toEqual({ id, sent: true });
      } finally {
        await endCrashRun(server, rx, store, pg);
      }
    },
    240_000,
  );
}
