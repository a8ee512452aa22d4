// The partnership and sandbox repositories' contract, run unchanged against both adapters: SQLite (in memory) and
// PostgreSQL (a database of its own for the whole file). PostgreSQL that cannot start fails the file; it never skips.
import { describe, expect, test } from "bun:test";
import { ConflictError } from "../../../domain/errors";
import type { Partnership } from "../../../domain/partners/partnership";
import type { ActiveVehicleTypes, PartnershipRepository } from "../../../domain/partners/ports";
import type { CompanyRepository } from "../../../domain/ports";
import type { SandboxTrip } from "../../../domain/usecases/sandbox-dispatch";
import { SqliteCompanyRepository } from "../../../adapters/sqlite/account-repositories";
import { SqlitePartnershipRepository } from "../../../adapters/sqlite/partnership-repository";
import { SqliteSandboxRepository } from "../../../adapters/sqlite/sandbox-repository";
import { PgCompanyRepository } from "../../../adapters/postgres/account-repositories";
import { PgPartnershipRepository } from "../../../adapters/postgres/partnership-repository";
import { PgSandboxRepository } from "../../../adapters/postgres/sandbox-repository";
import { describeOnBoth, onPostgres, onSqlite } from "./databases";

interface Repos {
  companies: CompanyRepository;
  partnerships: PartnershipRepository & ActiveVehicleTypes;
  /** What a booking change does before it reads `activeVehicleTypesSync` (nothing on SQLite, which reads in place). */
  prefetch(pairs: Array<[provider: string, requester: string]>): Promise<void>;
  sandboxes: {
    open(limit: number): Promise<SandboxTrip[]>;
    setSandbox(netid: string, on: boolean): boolean | Promise<boolean>;
    isSandbox(netid: string): boolean | Promise<boolean>;
  };
  /** Stores a bare booking row (the sandbox dispatcher reads only its keys, status and submit date). */
  addBooking(transactionId: string, providerId: string, status: string, submitDate: number): Promise<void>;
}

const BOOKING_COLUMNS =
  "transaction_id, requester_id, requester_res_no, provider_id, provider_res_no, status, reservation_type, userid, source_platform, target_platform, submit_date, pickup_date, updated_at, total_amount, quote_valid_until, content_hash, version, trip_packet, change_logs, transaction_errors";

const sqliteAdapter = onSqlite<Repos>((db) => {
  const insert = db.$client.prepare(`INSERT INTO bookings (${BOOKING_COLUMNS}) VALUES (?, 'REQ', ?, ?, NULL, ?, 'REGULAR', 'REQ', 'API', 'TRIPSWITCH', ?, 0, 0, NULL, NULL, 'h', 1, '{}', '[]', '[]')`);
  return {
    companies: new SqliteCompanyRepository(db),
    partnerships: new SqlitePartnershipRepository(db),
    prefetch: async () => {},
    sandboxes: new SqliteSandboxRepository(db),
    addBooking: async (id, provider, status, at) => void insert.run(id, `r-${id}`, provider, status, at),
  };
});

const postgresAdapter = onPostgres<Repos>((db) => {
  const partnerships = new PgPartnershipRepository(db);
  return {
    companies: new PgCompanyRepository(db),
    partnerships,
    prefetch: (pairs) => partnerships.prefetch(pairs),
    sandboxes: new PgSandboxRepository(db),
    addBooking: async (id, provider, status, at) => {
      await db.$client.unsafe(
        `INSERT INTO bookings (${BOOKING_COLUMNS}) VALUES ($1, 'REQ', $2, $3, NULL, $4, 'REGULAR', 'REQ', 'API', 'TRIPSWITCH', $5, 0, 0, NULL, NULL, 'h', 1, '{}', '[]', '[]')`,
        [id, `r-${id}`, provider, status, at],
      );
    },
  };
}, 4);

let serial = 0;
/** A company no other test uses; `prefix` orders netids where a test needs it. */
async function company(companies: CompanyRepository, prefix = "Co"): Promise<string> {
  const n = ++serial;
  const netid = `${prefix}${n}`;
  await companies.createWithFirstUser(
    { netid, name: `Company ${n}`, coType: "IO", plan: "FREE", mainEmail: `partner${n}@example.com`, mainPhone: `+4989${String(n).padStart(7, "0")}`, address: null, notes: null, createdAt: n },
    { uid: netid, netid, email: `partner${n}@example.com`, passwordHash: `hash-${n}`, createdAt: n },
  );
  return netid;
}

describeOnBoth("partnership and sandbox repositories", [sqliteAdapter, postgresAdapter], (r) => {

  describe("partnerships", () => {
    test("create records a pending request found from either side; a second request of the pair, from either side, is PARTNERSHIP_EXISTS", async () => {
      const x = await company(r.companies, "Zed");
      const y = await company(r.companies, "alpha");
      await r.partnerships.create(x, y, 100);
      const expected: Partnership = { companies: [y, x], requestedBy: x, state: "pending", createdAt: 100, acceptedAt: null };
      expect(await r.partnerships.find(x, y)).toEqual(expected);
      expect(await r.partnerships.find(y, x)).toEqual(expected);
      for (const [a, b] of [
        [x, y],
        [y, x],
      ]) {
        const error = await r.partnerships.create(a, b, 101).then(
          () => undefined,
          (e: unknown) => e,
        );
        expect(error).toBeInstanceOf(ConflictError);
        expect((error as ConflictError).code).toBe("PARTNERSHIP_EXISTS");
      }
      expect(await r.partnerships.find(x, await company(r.companies))).toBeUndefined();
    });

    test("activate makes a pending partnership active once; listFor gives a company's partnerships oldest first", async () => {
      const me = await company(r.companies);
      const [p, q, s] = [await company(r.companies, "B"), await company(r.companies, "A"), await company(r.companies, "C")];
      await r.partnerships.create(me, p, 300);
      await r.partnerships.create(q, me, 200);
      await r.partnerships.create(me, s, 300);
      await r.partnerships.activate(p, me, 400);
      await r.partnerships.activate(me, p, 500);
      expect(await r.partnerships.find(me, p)).toMatchObject({ state: "active", acceptedAt: 400 });
      const listed = await r.partnerships.listFor(me);
      expect(listed.map((l) => [l.createdAt, l.state])).toEqual([
        [200, "pending"],
        [300, "active"],
        [300, "pending"],
      ]);
      // Equal times: ordered by the pair's first netid, byte by byte ("B…" before "C…").
      expect(listed[1].companies).toContain(p);
      expect(listed[2].companies).toContain(s);
      expect(await r.partnerships.listFor(await company(r.companies))).toEqual([]);
    });

    test("vehicle-type maps are per provider and requester; setting one replaces it whole", async () => {
      const provider = await company(r.companies);
      const requester = await company(r.companies);
      await r.partnerships.setVehicleTypes(provider, requester, { SUV: "VAN", SEDAN: "LIMO" });
      expect(await r.partnerships.vehicleTypes(provider, requester)).toEqual({ SEDAN: "LIMO", SUV: "VAN" });
      expect(await r.partnerships.vehicleTypes(requester, provider)).toEqual({});
      await r.partnerships.setVehicleTypes(provider, requester, { BUS: "COACH" });
      expect(await r.partnerships.vehicleTypes(provider, requester)).toEqual({ BUS: "COACH" });
      await r.partnerships.setVehicleTypes(provider, requester, {});
      expect(await r.partnerships.vehicleTypes(provider, requester)).toEqual({});
    });

    test("activeVehicleTypesSync answers a provider's map only while the two are active partners", async () => {
      const provider = await company(r.companies);
      const requester = await company(r.companies);
      const read = async () => {
        await r.prefetch([[provider, requester]]);
        return r.partnerships.activeVehicleTypesSync(provider, requester);
      };
      await r.partnerships.setVehicleTypes(provider, requester, { SEDAN: "LIMO" });
      expect(await read()).toEqual({});
      await r.partnerships.create(requester, provider, 10);
      expect(await read()).toEqual({});
      await r.partnerships.activate(provider, requester, 11);
      expect(await read()).toEqual({ SEDAN: "LIMO" });
      await r.prefetch([[requester, provider]]);
      expect(r.partnerships.activeVehicleTypesSync(requester, provider)).toEqual({});
      await r.partnerships.setVehicleTypes(provider, requester, { SUV: "SPRINTER" });
      expect(await read()).toEqual({ SUV: "SPRINTER" });
    });

    test("remove ends a partnership and forgets both sides' maps; false when there was none", async () => {
      const a = await company(r.companies);
      const b = await company(r.companies);
      const other = await company(r.companies);
      await r.partnerships.create(a, b, 1);
      await r.partnerships.activate(a, b, 2);
      await r.partnerships.setVehicleTypes(a, b, { SEDAN: "LIMO" });
      await r.partnerships.setVehicleTypes(b, a, { SUV: "VAN" });
      await r.partnerships.setVehicleTypes(a, other, { BUS: "COACH" });
      expect(await r.partnerships.remove(b, a)).toBe(true);
      expect(await r.partnerships.find(a, b)).toBeUndefined();
      expect(await r.partnerships.vehicleTypes(a, b)).toEqual({});
      expect(await r.partnerships.vehicleTypes(b, a)).toEqual({});
      expect(await r.partnerships.vehicleTypes(a, other)).toEqual({ BUS: "COACH" });
      await r.prefetch([[a, b]]);
      expect(r.partnerships.activeVehicleTypesSync(a, b)).toEqual({});
      expect(await r.partnerships.remove(a, b)).toBe(false);
    });
  });

  describe("sandbox", () => {
    test("setSandbox and isSandbox take the netid in any letter case; an unknown company is not a sandbox and cannot become one", async () => {
      const netid = await company(r.companies, "Sbx");
      expect(await r.sandboxes.isSandbox(netid)).toBe(false);
      expect(await r.sandboxes.setSandbox(netid.toUpperCase(), true)).toBe(true);
      expect(await r.sandboxes.isSandbox(netid.toLowerCase())).toBe(true);
      expect(await r.sandboxes.setSandbox(netid, false)).toBe(true);
      expect(await r.sandboxes.isSandbox(netid)).toBe(false);
      expect(await r.sandboxes.setSandbox("NO-SUCH-CO", true)).toBe(false);
      expect(await r.sandboxes.isSandbox("NO-SUCH-CO")).toBe(false);
    });

    test("open lists sandbox providers' open bookings, oldest first, at most `limit`", async () => {
      const sandbox = await company(r.companies, "Sbx");
      const second = await company(r.companies, "Sbx");
      const real = await company(r.companies, "Real");
      await r.sandboxes.setSandbox(sandbox, true);
      await r.sandboxes.setSandbox(second, true);
      await r.addBooking("t-b", sandbox, "CONFIRMED", 50);
      await r.addBooking("t-a", sandbox, "EN_ROUTE", 50);
      await r.addBooking("t-c", second, "BOOKING_REQUEST", 40);
      await r.addBooking("t-d", sandbox, "CLOSE", 10);
      await r.addBooking("t-e", real, "CONFIRMED", 5);
      await r.addBooking("t-f", second, "ASSIGNED", 60);
      const open = await r.sandboxes.open(10);
      expect(open.map((t) => t.transactionId)).toEqual(["t-c", "t-a", "t-b", "t-f"]);
      expect(open[1]).toEqual({ transactionId: "t-a", providerId: sandbox, requesterId: "REQ", requesterResNo: "r-t-a", status: "EN_ROUTE" });
      expect((await r.sandboxes.open(2)).map((t) => t.transactionId)).toEqual(["t-c", "t-a"]);
      await r.sandboxes.setSandbox(second, false);
      expect((await r.sandboxes.open(10)).map((t) => t.transactionId)).toEqual(["t-a", "t-b"]);
    });
  });
});
