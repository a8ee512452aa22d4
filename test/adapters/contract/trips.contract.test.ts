// The trips repositories' contract (bookings, outbox, idempotency keys, integrations, provider fleet), run unchanged
// against both adapters: SQLite (in memory) and PostgreSQL (a database of its own for the whole file). PostgreSQL that
// cannot start fails the file; it never skips. The PostgreSQL-only cases (several instances) are in
// trips.postgres.test.ts.
import { beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import type { Integration } from "../../../domain/delivery/integration";
import type { IntegrationLookup, IntegrationRepository, Outbox, OutboxMessage, OutstandingDeliveries } from "../../../domain/delivery/ports";
import type { Booking } from "../../../domain/trips/booking";
import type { BookingRepository, IdempotencyStore, LandingsDue } from "../../../domain/trips/ports";
import type { ProviderFleet } from "../../../domain/pricing/ports";
import type { Company } from "../../../domain/company/registration";
import type { CompanyRepository } from "../../../domain/ports";
import { SecretBox } from "../../../adapters/security/secrets";
import { migrate as migrateSqlite, openDatabase } from "../../../adapters/sqlite/db";
import { AccountCache } from "../../../adapters/sqlite/account-cache";
import { SqliteCompanyRepository } from "../../../adapters/sqlite/account-repositories";
import { SqliteBookingRepository } from "../../../adapters/sqlite/booking-repository";
import { SqliteIntegrationRepository } from "../../../adapters/sqlite/integration-repository";
import { SqliteOutbox } from "../../../adapters/sqlite/outbox";
import { SqliteIdempotencyStore } from "../../../adapters/sqlite/idempotency-store";
import { SqliteProviderFleet } from "../../../adapters/sqlite/provider-fleet";
import { sealStoredSecrets } from "../../../adapters/sqlite/integration-repository";
import * as sqliteSchema from "../../../adapters/sqlite/schema";
import { migrate as migratePostgres, openPostgres, type PgDb } from "../../../adapters/postgres/db";
import { PgCompanyRepository } from "../../../adapters/postgres/account-repositories";
import { PgBookingRepository } from "../../../adapters/postgres/booking-repository";
import { PgIntegrationRepository, sealStoredSecretsPg } from "../../../adapters/postgres/integration-repository";
import { PgOutbox } from "../../../adapters/postgres/outbox";
import { PgIdempotencyStore } from "../../../adapters/postgres/idempotency-store";
import { PgProviderFleet } from "../../../adapters/postgres/provider-fleet";
import * as pgSchema from "../../../adapters/postgres/schema";
import { startDatabase, type TestDatabase } from "../../support/pg-databases";
import { appendLog, create, DUPLICATE_ANNOUNCEMENT, event, newBooking, TestAnnouncer } from "./trips-fixtures";
import { describeOnBoth } from "./databases";

const secrets = new SecretBox("ab".repeat(32));

interface Trips {
  bookings: BookingRepository & LandingsDue & { pendingChanges: number; drain(): Promise<void> };
  outbox: Outbox;
  idempotency: IdempotencyStore;
  integrations: IntegrationRepository & IntegrationLookup;
  fleet: ProviderFleet;
  companies: CompanyRepository;
  announcer: TestAnnouncer;
  /** Reads what getSync answers from (a no-op where getSync reads the database itself). */
  prefetch(netids: string[]): Promise<void>;
  /** The stored (sealed) secret columns of a company's integration. */
  storedSecrets(netid: string): Promise<{ password: string | null; secret: string | null }>;
  /** Writes secret columns as they are, unsealed (a database from before encryption at rest). */
  storePlainSecrets(netid: string, password: string | null, secret: string | null): Promise<void>;
  sealStored(): Promise<number>;
  insertFleet(netid: string, slug: string, active: boolean, airports: string): Promise<void>;
  /** Changes a stored entry's airports and active flag; removes one. */
  changeFleet(slug: string, airports: string, active: boolean, position?: { lat: number | null; lon: number | null }): Promise<void>;
  removeFleet(slug: string): Promise<void>;
}

interface Adapter {
  name: string;
  open(): Promise<Trips>;
  close(): Promise<void>;
}

const fleetRow = (netid: string, slug: string, active: boolean, airports: string) => ({
  slug,
  netid,
  type: "SEDAN",
  name: slug,
  description: "",
  imageUrl: null,
  maxPassengers: 3,
  maxLuggage: 2,
  lat: 37.6,
  lon: -122.4,
  airports,
  minimumRate: "10.00",
  hourlyRate: "90.00",
  currency: "USD",
  active,
  externalId: null,
  createdAt: 1_800_000_000,
  updatedAt: 1_800_000_000,
});

const sqliteAdapter: Adapter = {
  name: "SQLite",
  async open() {
    const db = openDatabase(":memory:");
    migrateSqlite(db);
    this.close = async () => db.$client.close();
    const integrations = new SqliteIntegrationRepository(db, secrets);
    const announcer = new TestAnnouncer(integrations);
    const bookings = new SqliteBookingRepository(db, announcer);
    const outbox = new SqliteOutbox(db, { bookings, integrations });
    const table = sqliteSchema.companyIntegrations;
    return {
      bookings,
      outbox,
      idempotency: new SqliteIdempotencyStore(db),
      integrations,
      fleet: new SqliteProviderFleet(db),
      companies: new SqliteCompanyRepository(db),
      announcer,
      prefetch: async () => {},
      storedSecrets: async (netid) => {
        const row = db.select({ password: table.deliveryPassword, secret: table.webhookSecret }).from(table).where(eq(table.netid, netid)).get();
        return row ?? { password: null, secret: null };
      },
      storePlainSecrets: async (netid, password, secret) => {
        db.update(table).set({ deliveryPassword: password, webhookSecret: secret }).where(eq(table.netid, netid)).run();
        AccountCache.of(db).clear();
      },
      sealStored: async () => {
        const sealed = sealStoredSecrets(db, secrets);
        AccountCache.of(db).clear();
        return sealed;
      },
      insertFleet: async (netid, slug, active, airports) => {
        db.insert(sqliteSchema.fleetEntries).values(fleetRow(netid, slug, active, airports)).run();
      },
      changeFleet: async (slug, airports, active, position) => {
        db.update(sqliteSchema.fleetEntries).set({ airports, active, ...position }).where(eq(sqliteSchema.fleetEntries.slug, slug)).run();
      },
      removeFleet: async (slug) => {
        db.delete(sqliteSchema.fleetEntries).where(eq(sqliteSchema.fleetEntries.slug, slug)).run();
      },
    };
  },
  async close() {},
};

function postgresAdapter(groupCommit: boolean): Adapter {
  let cluster: TestDatabase | undefined;
  const pools: PgDb[] = [];
  return {
    name: groupCommit ? "PostgreSQL with group commit" : "PostgreSQL",
    async open() {
      cluster = await startDatabase();
      const db = openPostgres(cluster.url, { max: 10 });
      pools.push(db);
      await migratePostgres(db.$client);
      const integrations = new PgIntegrationRepository(db, secrets);
      const announcer = new TestAnnouncer(integrations);
      const prefetch = (netids: string[]) => integrations.prefetch(netids);
      const bookings = new PgBookingRepository(db, announcer, (list) => prefetch(list.flatMap((b) => [b.providerId, b.requesterId])), { groupCommit });
      const table = pgSchema.companyIntegrations;
      return {
        bookings,
        outbox: new PgOutbox(db, { owner: "instance-a", leaseSeconds: 60, bookings, integrations }),
        idempotency: new PgIdempotencyStore(db),
        integrations,
        fleet: new PgProviderFleet(db),
        companies: new PgCompanyRepository(db),
        announcer,
        prefetch,
        storedSecrets: async (netid) => {
          const [row] = await db.select({ password: table.deliveryPassword, secret: table.webhookSecret }).from(table).where(eq(table.netid, netid));
          return row ?? { password: null, secret: null };
        },
        storePlainSecrets: async (netid, password, secret) => {
          await db.update(table).set({ deliveryPassword: password, webhookSecret: secret }).where(eq(table.netid, netid));
        },
        sealStored: () => sealStoredSecretsPg(db, secrets),
        insertFleet: async (netid, slug, active, airports) => {
          await db.insert(pgSchema.fleetEntries).values(fleetRow(netid, slug, active, airports));
        },
        changeFleet: async (slug, airports, active, position) => {
          await db.update(pgSchema.fleetEntries).set({ airports, active, ...position }).where(eq(pgSchema.fleetEntries.slug, slug));
        },
        removeFleet: async (slug) => {
          await db.delete(pgSchema.fleetEntries).where(eq(pgSchema.fleetEntries.slug, slug));
        },
      };
    },
    async close() {
      for (const pool of pools.splice(0)) await pool.$client.close();
      await cluster?.stop();
    },
  };
}

let companySerial = 0;
function company(netid: string): Company {
  const n = ++companySerial;
  return { netid, name: netid, coType: "IO", plan: "FREE", mainEmail: `c${n}-${netid.toLowerCase()}@example.com`, mainPhone: `+4930${String(n).padStart(7, "0")}`, address: null, notes: null, createdAt: 1_700_000_000 };
}

function integration(netid: string, over: Partial<Integration> = {}): Integration {
  // A webhook URL saved here counts as verified (its challenge answered).
  return { netid, deliveryUrl: null, deliveryAuth: null, luggage: "notes", webhookUrl: null, webhookSecret: null, webhookVerifiedAt: over.webhookUrl ? 1_700_000_000 : null, webhookFormat: "events", acceptTripsFrom: "anyone", serviceRadiusKm: 50, turnaroundMinutes: 30, minimumNoticeMinutes: 0, maxTripKm: 800, ...over };
}

/** A time after every message the tests announce: everything pending is due. */
const LATER = 1_900_000_000;

/** Pending messages due at `now` that belong to `bookings`, in the order `due` gave them. */
async function dueOf(outbox: Outbox, bookings: Booking[], now = LATER): Promise<OutboxMessage[]> {
  const ids = new Set(bookings.map((b) => b.transactionId));
  return (await outbox.due(now, 1000)).filter((m) => ids.has(m.transactionId));
}

describeOnBoth("trips repositories", [sqliteAdapter, postgresAdapter(false), postgresAdapter(true)], (a, adapter) => {
  /** The adapter's name as a netid part. */
  const tag = adapter.name.replace(/\W+/g, "-");
  beforeAll(async () => {
    await a.companies.createWithFirstUser(company("REQ-CO"), { uid: "req-user", netid: "REQ-CO", email: "req@example.com", passwordHash: "h", createdAt: 1_700_000_000 });
    await a.companies.createWithFirstUser(company("PROV-CO"), { uid: "prov-user", netid: "PROV-CO", email: "prov@example.com", passwordHash: "h", createdAt: 1_700_000_000 });
    await a.integrations.save(integration("PROV-CO", { deliveryUrl: "https://prov.example/deliver", deliveryAuth: { username: "u", password: "p" } }), 1_700_000_000);
    await a.integrations.save(integration("REQ-CO", { webhookUrl: "https://req.example/hook", webhookSecret: "whsec" }), 1_700_000_000);
  });

  describe("bookings", () => {
    test("change creates a booking; findById and findByResNo return it whole", async () => {
      const b = newBooking({ vehicle: { plateNo: "X1" }, providerResNo: "P-1", affiliateExtra: { extra: 1 } });
      expect(await a.bookings.change({ transactionId: b.transactionId }, create(b))).toBe(b.transactionId);
      expect(await a.bookings.findById(b.transactionId)).toEqual(b);
      expect(await a.bookings.findByResNo("requester", b.requesterId, b.requesterResNo)).toEqual(b);
      expect(await a.bookings.findByResNo("provider", b.providerId, "P-1")).toEqual(b);
      expect(await a.bookings.findById("nope")).toBeUndefined();
      expect(await a.bookings.findByResNo("requester", b.requesterId, "nope")).toBeUndefined();
      expect(a.bookings.pendingChanges).toBe(0);
    });

    test("findByResNo on the provider side answers the live booking with that providerResNo, else the newest ended one", async () => {
      const ended = newBooking({ providerResNo: "SHARED-P", submitDate: 1_800_500_000, status: "CLOSE" });
      const newerEnded = newBooking({ providerResNo: "SHARED-P", submitDate: 1_800_500_050, status: "CANCEL" });
      await a.bookings.change({ transactionId: ended.transactionId }, create(ended));
      await a.bookings.change({ transactionId: newerEnded.transactionId }, create(newerEnded));
      expect((await a.bookings.findByResNo("provider", "PROV-CO", "SHARED-P"))?.transactionId).toBe(newerEnded.transactionId);
      // An older live booking wins over newer ended ones: it is the one the number names now.
      const live = newBooking({ providerResNo: "SHARED-P", submitDate: 1_800_499_000 });
      await a.bookings.change({ transactionId: live.transactionId }, create(live));
      expect((await a.bookings.findByResNo("provider", "PROV-CO", "SHARED-P"))?.transactionId).toBe(live.transactionId);
    });

    test("a provider's number names at most one live booking: a second live holder is refused with PROVIDER_RES_NO_IN_USE, also when racing", async () => {
      const first = newBooking({ providerResNo: "ONE-LIVE", submitDate: 1_800_600_000 });
      await a.bookings.change({ transactionId: first.transactionId }, create(first));
      const second = newBooking({ submitDate: 1_800_600_100 });
      await a.bookings.change({ transactionId: second.transactionId }, create(second));
      const giveNumber = (n: string) => (current: Booking | undefined) => ({ result: 1, write: { booking: { ...current!, providerResNo: n }, events: [] } });
      await expect(a.bookings.change({ transactionId: second.transactionId }, giveNumber("ONE-LIVE"))).rejects.toMatchObject({ code: "PROVIDER_RES_NO_IN_USE" });
      expect((await a.bookings.findById(second.transactionId))?.providerResNo).toBeNull();
      // Two bookings taking one new number at once: exactly one gets it.
      const c = newBooking({ submitDate: 1_800_600_200 });
      const d = newBooking({ submitDate: 1_800_600_300 });
      await a.bookings.change({ transactionId: c.transactionId }, create(c));
      await a.bookings.change({ transactionId: d.transactionId }, create(d));
      const outcomes = await Promise.allSettled([c, d].map((b) => a.bookings.change({ transactionId: b.transactionId }, giveNumber("RACED-1"))));
      expect(outcomes.filter((o) => o.status === "fulfilled")).toHaveLength(1);
      expect(outcomes.filter((o) => o.status === "rejected").map((o) => (o as PromiseRejectedResult).reason.code)).toEqual(["PROVIDER_RES_NO_IN_USE"]);
      // Once the holder ended, the number is free for another booking.
      await a.bookings.change({ transactionId: first.transactionId }, (current) => ({ result: 1, write: { booking: { ...current!, status: "CLOSE" as const }, events: [] } }));
      expect(await a.bookings.change({ transactionId: second.transactionId }, giveNumber("ONE-LIVE"))).toBe(1);
    });

    test("landingBetween: live bookings whose flight lands in the span, soonest first; a landing or an end leaves it", async () => {
      const L = 1_900_000_000;
      const withFlight = (flight: NonNullable<Booking["flight"]>, over: Partial<Booking> = {}) => {
        const b = newBooking(over);
        const pickup = { address: "JFK", flightInfo: { airlineCode: "BA", flightNumber: "117" } };
        return { ...b, trip: { ...b.trip, locations: { pickup } }, flight } satisfies Booking;
      };
      const scheduled = (at: number) => ({ scheduledLanding: at, pickupOffsetMinutes: 45, originalPickup: at + 2700 });
      const later = withFlight(scheduled(L + 100));
      const estimated = withFlight({ ...scheduled(L - 3600), estimatedLanding: L + 50 });
      const outside = withFlight(scheduled(L + 5000));
      const landed = withFlight({ ...scheduled(L + 10), landedAt: L + 20 });
      const ended = withFlight(scheduled(L + 30), { status: "CANCEL" });
      // Written without events: no outbox messages for the other tests' due queries to meet.
      const write = (change: (b: Booking | undefined) => Booking) => (current: Booking | undefined) => ({ result: 1, write: { booking: change(current), events: [] } });
      for (const b of [later, estimated, outside, landed, ended]) await a.bookings.change({ transactionId: b.transactionId }, write(() => b));
      const due = async (limit = 10) => (await a.bookings.landingBetween(L, L + 1000, limit)).map((b) => b.transactionId);
      expect(await due()).toEqual([estimated.transactionId, later.transactionId]);
      expect(await due(1)).toEqual([estimated.transactionId]);
      expect((await a.bookings.landingBetween(L, L + 1000, 10))[0]).toEqual(estimated);
      await a.bookings.change({ transactionId: estimated.transactionId }, write((b) => ({ ...b!, flight: { ...b!.flight!, landedAt: L + 40 } })));
      await a.bookings.change({ transactionId: later.transactionId }, write((b) => ({ ...b!, status: "PASSENGER_ON_BOARD" })));
      expect(await due()).toEqual([]);
    });

    test("a change decides on the stored booking and writes what it returns; a decision without a write writes nothing", async () => {
      const b = newBooking();
      await a.bookings.change({ transactionId: b.transactionId }, create(b));
      expect(await a.bookings.change({ transactionId: b.transactionId }, appendLog("first", 1_800_000_500))).toBe(1);
      expect(await a.bookings.change({ requesterId: b.requesterId, requesterResNo: b.requesterResNo }, appendLog("second", 1_800_000_600))).toBe(2);
      const stored = await a.bookings.findById(b.transactionId);
      expect(stored?.changeLogs.map((l) => l.changeDesc)).toEqual(["first", "second"]);
      expect(stored?.updatedAt).toBe(1_800_000_600);
      const before = await a.outbox.forBooking(b.transactionId);
      expect(await a.bookings.change({ transactionId: b.transactionId }, (current) => ({ result: current?.status }))).toBe("BOOKING_REQUEST");
      expect(await a.outbox.forBooking(b.transactionId)).toEqual(before);
    });

    test("an error thrown by decide rejects the change and writes nothing", async () => {
      const b = newBooking();
      const failing = () => {
        throw new Error("refused");
      };
      await expect(a.bookings.change({ transactionId: b.transactionId }, failing)).rejects.toThrow("refused");
      await a.bookings.drain();
      expect(await a.bookings.findById(b.transactionId)).toBeUndefined();
    });

    test("one booking per (requester, requesterResNo): a second create by that pair decides on the first", async () => {
      const first = newBooking();
      const second = newBooking({ requesterResNo: first.requesterResNo });
      const ref = { requesterId: first.requesterId, requesterResNo: first.requesterResNo };
      expect(await a.bookings.change(ref, create(first))).toBe(first.transactionId);
      expect(await a.bookings.change(ref, create(second))).toBe(first.transactionId);
      expect(await a.bookings.findById(second.transactionId)).toBeUndefined();
      // Concurrent creates by the pair: one booking, every caller answered with it.
      const third = newBooking();
      const ref3 = { requesterId: third.requesterId, requesterResNo: third.requesterResNo };
      const ids = await Promise.all(Array.from({ length: 10 }, () => a.bookings.change(ref3, create(newBooking({ requesterResNo: third.requesterResNo })))));
      expect(new Set(ids).size).toBe(1);
      expect((await a.bookings.list({ netid: third.requesterId, requesterResNo: third.requesterResNo, limit: 50, offset: 0 })).total).toBe(1);
    });

    test("concurrent changes of one booking all apply, one after another", async () => {
      const b = newBooking();
      await a.bookings.change({ transactionId: b.transactionId }, create(b));
      const counts = await Promise.all(Array.from({ length: 12 }, (_, i) => a.bookings.change({ transactionId: b.transactionId }, appendLog(`line ${i}`, 1_800_000_700 + i))));
      expect([...counts].sort((x, y) => x - y)).toEqual(Array.from({ length: 12 }, (_, i) => i + 1));
      expect((await a.bookings.findById(b.transactionId))?.changeLogs).toHaveLength(12);
    });

    test("list: by role, status, requesterResNo and pickup window; newest first, paged, with the total", async () => {
      const me = `LISTER-${tag}`;
      const other = `PEER-${tag}`;
      const made: Booking[] = [];
      for (let i = 0; i < 6; i++) {
        const asRequester = i % 2 === 0;
        const b = newBooking({
          requesterId: asRequester ? me : other,
          providerId: asRequester ? other : me,
          status: i < 3 ? "BOOKING_REQUEST" : "CONFIRMED",
          submitDate: 1_800_900_000 + (i === 5 ? 4 : i),
          pickupDate: 1_801_000_000 + i * 100,
          trip: { ...newBooking().trip, reservationType: i === 1 ? "QUOTE" : "REGULAR" },
        });
        made.push(b);
        await a.bookings.change({ transactionId: b.transactionId }, create(b));
      }
      // Bookings 4 and 5 were submitted in the same second: the later one comes first.
      const order = [made[5], made[4], made[3], made[2], made[1], made[0]].map((b) => b.transactionId);
      const all = await a.bookings.list({ netid: me, limit: 50, offset: 0 });
      expect(all.total).toBe(6);
      expect(all.items.map((s) => s.transactionId)).toEqual(order);
      expect(all.items[4]).toEqual({
        transactionId: made[1].transactionId,
        requesterId: other,
        providerId: me,
        requesterResNo: made[1].requesterResNo,
        providerResNo: null,
        status: "BOOKING_REQUEST",
        submitDate: made[1].submitDate,
        pickupDate: made[1].pickupDate,
        reservationType: "QUOTE",
        pickup: made[1].trip.locations.pickup,
      });
      const page = await a.bookings.list({ netid: me, limit: 2, offset: 2 });
      expect(page.total).toBe(6);
      expect(page.items.map((s) => s.transactionId)).toEqual(order.slice(2, 4));
      expect((await a.bookings.list({ netid: me, role: "requester", limit: 50, offset: 0 })).items.map((s) => s.transactionId)).toEqual([made[4], made[2], made[0]].map((b) => b.transactionId));
      expect((await a.bookings.list({ netid: me, role: "provider", status: "CONFIRMED", limit: 50, offset: 0 })).items.map((s) => s.transactionId)).toEqual([made[5], made[3]].map((b) => b.transactionId));
      expect((await a.bookings.list({ netid: me, requesterResNo: made[2].requesterResNo, limit: 50, offset: 0 })).items.map((s) => s.transactionId)).toEqual([made[2].transactionId]);
      const window = await a.bookings.list({ netid: me, pickupFrom: 1_801_000_100, pickupTo: 1_801_000_300, limit: 50, offset: 0 });
      expect(window.items.map((s) => s.transactionId)).toEqual([made[3], made[2], made[1]].map((b) => b.transactionId));
      expect(window.total).toBe(3);
      expect(await a.bookings.list({ netid: "NOBODY", limit: 50, offset: 0 })).toEqual({ items: [], total: 0 });
    });
  });

  describe("announcements", () => {
    test("are written with the change, each due at its event's time, and wake the reader after the commit", async () => {
      const b = newBooking();
      const wakes = a.announcer.wakes;
      await a.bookings.change({ transactionId: b.transactionId }, create(b, 1_800_000_042));
      expect(a.announcer.wakes).toBe(wakes + 1);
      const messages = await a.outbox.forBooking(b.transactionId);
      expect(messages.map((m) => [m.channel, m.targetNetid, m.url, m.eventType, m.status, m.attempts, m.nextAttemptAt, m.createdAt, m.deliveredAt, m.lastError, m.lastStatus])).toEqual([
        ["delivery", "PROV-CO", "https://prov.example/deliver", "TRIP_SENT", "pending", 0, 1_800_000_042, 1_800_000_042, null, null, null],
        ["webhook", "REQ-CO", "https://req.example/hook", "TRIP_SENT", "pending", 0, 1_800_000_042, 1_800_000_042, null, null, null],
      ]);
      // A change that announces nothing does not wake it.
      const quiet = newBooking({ providerId: "NO-INTEGRATION", requesterId: "NO-INTEGRATION-EITHER" });
      await a.bookings.change({ transactionId: quiet.transactionId }, create(quiet));
      expect(a.announcer.wakes).toBe(wakes + 1);
      expect(await a.outbox.forBooking(quiet.transactionId)).toEqual([]);
    });

    test("roll back with the change: an announcement that cannot be written leaves neither booking nor messages", async () => {
      const b = newBooking({ notes: DUPLICATE_ANNOUNCEMENT });
      await expect(a.bookings.change({ transactionId: b.transactionId }, create(b))).rejects.toThrow();
      await a.bookings.drain();
      expect(await a.bookings.findById(b.transactionId)).toBeUndefined();
      expect(await a.outbox.forBooking(b.transactionId)).toEqual([]);
      // The same for an update: the booking keeps its version and content.
      const c = newBooking();
      await a.bookings.change({ transactionId: c.transactionId }, create(c));
      const failing = (current: Booking | undefined) => ({ result: 0, write: { booking: { ...current!, notes: DUPLICATE_ANNOUNCEMENT }, events: [event(current!, "TRIP_UPDATED", 1_800_000_900)] } });
      await expect(a.bookings.change({ transactionId: c.transactionId }, failing)).rejects.toThrow();
      await a.bookings.drain();
      expect(await a.bookings.findById(c.transactionId)).toEqual(c);
      expect(await a.outbox.forBooking(c.transactionId)).toHaveLength(2);
    });
  });

  describe("outbox", () => {
    test("due: earliest first (due time, then id); a booking's next message waits until the older one is no longer pending", async () => {
      const early = newBooking();
      const late = newBooking();
      await a.bookings.change({ transactionId: late.transactionId }, create(late, 1_800_001_000));
      await a.bookings.change({ transactionId: early.transactionId }, create(early, 1_800_000_001));
      await a.bookings.change({ transactionId: early.transactionId }, appendLog("again", 1_800_000_002));
      const [first, second] = await a.outbox.forBooking(early.transactionId);
      const due = await dueOf(a.outbox, [early, late]);
      const lateOnes = await a.outbox.forBooking(late.transactionId);
      expect(due.map((m) => m.id)).toEqual([first.id, second.id, ...lateOnes.map((m) => m.id)]);
      expect(due[0]).toEqual(first);
      // Not yet due: nothing.
      expect(await dueOf(a.outbox, [early, late], 1_800_000_000)).toEqual([]);
      // The first delivery of `early` delivered: its second delivery (TRIP_UPDATED) is due.
      expect(await a.outbox.recordAttempt(first, { ok: true, status: 200, at: 1_800_000_010 })).toBe(true);
      const next = (await dueOf(a.outbox, [early])).filter((m) => m.channel === "delivery");
      expect(next.map((m) => m.eventType)).toEqual(["TRIP_UPDATED"]);
      expect(await a.outbox.nextDueAt()).toBeLessThanOrEqual(1_800_000_002);
    });

    test("recordAttempt: delivered, retried and failed for good, each with its booking change and that change's announcements", async () => {
      const b = newBooking();
      await a.bookings.change({ transactionId: b.transactionId }, create(b, 1_800_002_000));
      const [delivery, webhook] = await dueOf(a.outbox, [b]);
      expect(delivery.channel).toBe("delivery");
      const ok = await a.outbox.recordAttempt(delivery, { ok: true, status: 201, at: 1_800_002_005 }, { ref: { transactionId: b.transactionId }, decide: appendLog("delivered", 1_800_002_005, "DELIVERED") });
      expect(ok).toBe(true);
      expect(await a.outbox.get(delivery.id)).toMatchObject({ status: "delivered", lastStatus: 201, lastError: null, deliveredAt: 1_800_002_005, attempts: 1 });
      expect((await a.bookings.findById(b.transactionId))?.changeLogs.map((l) => l.changeDesc)).toEqual(["delivered"]);
      const all = await a.outbox.forBooking(b.transactionId);
      expect(all.map((m) => [m.channel, m.eventType, m.status])).toEqual([
        ["delivery", "TRIP_SENT", "delivered"],
        ["webhook", "TRIP_SENT", "pending"],
        ["delivery", "DELIVERED", "pending"],
        ["webhook", "DELIVERED", "pending"],
      ]);

      expect(await a.outbox.recordAttempt(webhook, { ok: false, error: "timeout", status: null, retryAt: 1_800_002_100, at: 1_800_002_006 })).toBe(true);
      expect(await a.outbox.get(webhook.id)).toMatchObject({ status: "pending", attempts: 1, lastError: "timeout", lastStatus: null, nextAttemptAt: 1_800_002_100, deliveredAt: null });

      const [retried] = (await dueOf(a.outbox, [b])).filter((m) => m.id === webhook.id);
      expect(retried.attempts).toBe(1);
      expect(await a.outbox.recordAttempt(retried, { ok: false, error: "gone", status: 410, retryAt: undefined, at: 1_800_002_200 }, { ref: { transactionId: b.transactionId }, decide: appendLog("failed", 1_800_002_200, "DELIVERY_FAILED") })).toBe(true);
      expect(await a.outbox.get(webhook.id)).toMatchObject({ status: "failed", attempts: 2, lastError: "gone", lastStatus: 410, nextAttemptAt: 1_800_002_100 });
      expect((await a.bookings.findById(b.transactionId))?.changeLogs.map((l) => l.changeDesc)).toEqual(["delivered", "failed"]);
    });

    test("recordAttempt writes nothing when its booking change fails", async () => {
      const b = newBooking();
      await a.bookings.change({ transactionId: b.transactionId }, create(b, 1_800_003_000));
      const [delivery] = await dueOf(a.outbox, [b]);
      const refuse = () => {
        throw new Error("no");
      };
      await expect(a.outbox.recordAttempt(delivery, { ok: true, status: 200, at: 1_800_003_001 }, { ref: { transactionId: b.transactionId }, decide: refuse })).rejects.toThrow("no");
      await Bun.sleep(50);
      expect(await a.outbox.get(delivery.id)).toEqual({ ...delivery });
      expect(await a.bookings.findById(b.transactionId)).toEqual(b);
    });

    test("retryFailedDeliveries: the booking change, failed deliveries back to pending and pending ones due now, at the provider's current URL, in one transaction", async () => {
      const b = newBooking({ providerId: "RETRY-PROV" });
      await a.companies.createWithFirstUser(company("RETRY-PROV"), { uid: "retry-prov", netid: "RETRY-PROV", email: "retry-prov@example.com", passwordHash: "h", createdAt: 1 });
      await a.integrations.save(integration("RETRY-PROV", { deliveryUrl: "https://old.example/in" }), 1_700_000_000);
      await a.bookings.change({ transactionId: b.transactionId }, create(b, 1_800_004_000));
      const [delivery] = (await dueOf(a.outbox, [b])).filter((m) => m.channel === "delivery");
      expect(delivery.url).toBe("https://old.example/in");
      await a.outbox.recordAttempt(delivery, { ok: false, error: "down", status: 503, retryAt: undefined, at: 1_800_004_001 });
      await a.integrations.save(integration("RETRY-PROV", { deliveryUrl: "https://new.example/in" }), 1_700_000_001);

      // A decision that throws rolls back everything.
      const seen: OutstandingDeliveries[] = [];
      const refusing = (_: Booking | undefined, outstanding: OutstandingDeliveries) => {
        seen.push(outstanding);
        throw new Error("not yours");
      };
      await expect(a.outbox.retryFailedDeliveries(b.transactionId, refusing, 1_800_004_100)).rejects.toThrow("not yours");
      await Bun.sleep(50);
      expect(await a.outbox.get(delivery.id)).toMatchObject({ status: "failed", url: "https://old.example/in", attempts: 1 });

      await a.outbox.retryFailedDeliveries(b.transactionId, (current, outstanding) => {
        seen.push(outstanding);
        return appendLog("retried", 1_800_004_100, "DELIVERY_RETRIED")(current);
      }, 1_800_004_100);
      expect(seen).toEqual([{ failed: true, pending: false }, { failed: true, pending: false }]);
      expect(await a.outbox.get(delivery.id)).toMatchObject({ status: "pending", url: "https://new.example/in", attempts: 0, nextAttemptAt: 1_800_004_100 });
      expect((await a.bookings.findById(b.transactionId))?.changeLogs.map((l) => l.changeDesc)).toEqual(["retried"]);

      // Still retrying (pending after a failed attempt): decide is told so, and it is due at once with fresh attempts.
      const [again] = (await dueOf(a.outbox, [b])).filter((m) => m.channel === "delivery");
      await a.outbox.recordAttempt(again, { ok: false, error: "down", status: 503, retryAt: 1_800_009_000, at: 1_800_004_150 });
      expect(await a.outbox.get(delivery.id)).toMatchObject({ status: "pending", attempts: 1, nextAttemptAt: 1_800_009_000 });
      await a.outbox.retryFailedDeliveries(b.transactionId, (current, outstanding) => {
        seen.push(outstanding);
        return { result: current?.status };
      }, 1_800_004_200);
      expect(seen.at(-1)).toEqual({ failed: false, pending: true });
      expect(await a.outbox.get(delivery.id)).toMatchObject({ status: "pending", attempts: 0, nextAttemptAt: 1_800_004_200, url: "https://new.example/in" });

      // All delivered (the test announcer queued one more for the retry's own event): nothing outstanding.
      for (let round = 0; round < 5; round++) {
        const due = (await dueOf(a.outbox, [b])).filter((m) => m.channel === "delivery");
        for (const m of due) await a.outbox.recordAttempt(m, { ok: true, status: 200, at: 1_800_004_201 });
      }
      expect((await a.outbox.forBooking(b.transactionId)).filter((m) => m.channel === "delivery" && m.status !== "delivered")).toEqual([]);
      await a.outbox.retryFailedDeliveries(b.transactionId, (current, outstanding) => {
        seen.push(outstanding);
        return { result: current?.status };
      }, 1_800_004_300);
      expect(seen.at(-1)).toEqual({ failed: false, pending: false });
    });

    test("requeue sends a message again with the same event id", async () => {
      const b = newBooking();
      await a.bookings.change({ transactionId: b.transactionId }, create(b, 1_800_005_000));
      const [delivery] = await dueOf(a.outbox, [b]);
      await a.outbox.recordAttempt(delivery, { ok: true, status: 200, at: 1_800_005_001 });
      await a.outbox.requeue(delivery.id, 1_800_005_050);
      const again = await a.outbox.byEventId(delivery.eventId);
      expect(again).toMatchObject({ id: delivery.id, status: "pending", attempts: 0, deliveredAt: null, nextAttemptAt: 1_800_005_050 });
      expect((await dueOf(a.outbox, [b])).map((m) => m.id)).toContain(delivery.id);
    });

    test("get, byEventId, list (newest first, paged), latest, forBooking (oldest first) and backlog", async () => {
      const requester = `LISTED-${tag}`;
      await a.companies.createWithFirstUser(company(requester), { uid: `u-${requester}`, netid: requester, email: `${requester.toLowerCase()}@example.com`, passwordHash: "h", createdAt: 1 });
      await a.integrations.save(integration(requester, { webhookUrl: "https://listed.example/hook" }), 1_700_000_000);
      const backlogBefore = await a.outbox.backlog();
      const made: Booking[] = [];
      for (let i = 0; i < 3; i++) {
        const b = newBooking({ requesterId: requester, providerId: "NO-INTEGRATION" });
        made.push(b);
        await a.bookings.change({ transactionId: b.transactionId }, create(b, 1_800_006_000 + i));
      }
      await a.bookings.change({ transactionId: made[0].transactionId }, appendLog("later", 1_800_006_010));
      const mine = (await Promise.all(made.map((b) => a.outbox.forBooking(b.transactionId)))).flat().sort((x, y) => y.id - x.id);
      expect(mine).toHaveLength(4);
      expect(mine.every((m) => m.channel === "webhook" && m.targetNetid === requester)).toBe(true);
      const listed = await a.outbox.list(requester, "webhook", 2, 1);
      expect(listed.total).toBe(4);
      expect(listed.items).toEqual(mine.slice(1, 3));
      expect(await a.outbox.list(requester, "delivery", 10, 0)).toEqual({ items: [], total: 0 });
      expect(await a.outbox.get(mine[0].id)).toEqual(mine[0]);
      expect(await a.outbox.byEventId(mine[0].eventId)).toEqual(mine[0]);
      expect(await a.outbox.get(999_999_999)).toBeUndefined();
      expect(await a.outbox.byEventId("no-such-event")).toBeUndefined();
      expect((await a.outbox.latest(made[0].transactionId, "webhook"))?.eventType).toBe("TRIP_UPDATED");
      expect(await a.outbox.latest(made[0].transactionId, "delivery")).toBeUndefined();
      expect((await a.outbox.forBooking(made[0].transactionId)).map((m) => m.eventType)).toEqual(["TRIP_SENT", "TRIP_UPDATED"]);
      const count = (rows: Array<{ channel: string; status: string; count: number }>, channel: string, status: string) => rows.find((r) => r.channel === channel && r.status === status)?.count ?? 0;
      const backlogAfter = await a.outbox.backlog();
      expect(count(backlogAfter, "webhook", "pending") - count(backlogBefore, "webhook", "pending")).toBe(4);
      expect(backlogAfter.every((r) => (r.status === "pending" || r.status === "failed") && typeof r.count === "number")).toBe(true);
    });
  });

  describe("idempotency keys", () => {
    test("reserve, in progress, complete (stored), release, takeover of a dead reservation, expiry", async () => {
      const now = 1_800_010_000;
      const key = `key-${tag}`;
      expect(await a.idempotency.reserve("REQ-CO", key, "hash-1", now)).toEqual({ kind: "reserved" });
      expect(await a.idempotency.reserve("REQ-CO", key, "hash-2", now + 1)).toEqual({ kind: "in-progress", requestHash: "hash-1" });
      // Scoped per company.
      expect(await a.idempotency.reserve("PROV-CO", key, "hash-3", now + 1)).toEqual({ kind: "reserved" });
      await a.idempotency.complete("REQ-CO", key, { requestHash: "hash-1", status: 201, body: '{"ok":true}' }, now + 2);
      expect(await a.idempotency.reserve("REQ-CO", key, "hash-1", now + 3)).toMatchObject({ kind: "stored", result: { requestHash: "hash-1", status: 201, body: '{"ok":true}' } });
      // Released: the next request with the key runs.
      await a.idempotency.release("PROV-CO", key);
      expect(await a.idempotency.reserve("PROV-CO", key, "hash-4", now + 4)).toEqual({ kind: "reserved" });
      // A stored result is not released.
      await a.idempotency.release("REQ-CO", key);
      expect((await a.idempotency.reserve("REQ-CO", key, "hash-1", now + 5)).kind).toBe("stored");
      // A reservation older than the lease (120 s) is taken over, once.
      expect(await a.idempotency.reserve("PROV-CO", key, "hash-5", now + 4 + 119)).toEqual({ kind: "in-progress", requestHash: "hash-4" });
      const takers = await Promise.all([a.idempotency.reserve("PROV-CO", key, "hash-6", now + 4 + 120), a.idempotency.reserve("PROV-CO", key, "hash-7", now + 4 + 120)]);
      expect(takers.filter((r) => r.kind === "reserved")).toHaveLength(1);
      // After the TTL (24 h) a stored result is gone.
      expect(await a.idempotency.reserve("REQ-CO", key, "hash-8", now + 2 + 24 * 3600)).toEqual({ kind: "reserved" });
    });

    test("of concurrent reservations of one key exactly one wins", async () => {
      const results = await Promise.all(Array.from({ length: 10 }, (_, i) => a.idempotency.reserve("REQ-CO", `race-${tag}`, `h${i}`, 1_800_020_000)));
      expect(results.filter((r) => r.kind === "reserved")).toHaveLength(1);
      expect(results.filter((r) => r.kind === "in-progress")).toHaveLength(9);
    });
  });

  describe("integrations", () => {
    test("save and get, secrets sealed in storage; getSync answers after a prefetch; sealing the plain ones", async () => {
      const netid = `INTEG-${tag}`;
      await a.companies.createWithFirstUser(company(netid), { uid: `u-${netid}`, netid, email: `${netid.toLowerCase()}@example.com`, passwordHash: "h", createdAt: 1 });
      expect(await a.integrations.get(netid)).toBeUndefined();
      const saved = integration(netid, { deliveryUrl: "https://x.example/in", deliveryAuth: { username: "user", password: "pass" }, webhookUrl: "https://x.example/hook", webhookSecret: "s3cret", webhookFormat: "gnet", acceptTripsFrom: "partners", luggage: "count" as Integration["luggage"] });
      await a.integrations.save(saved, 1_700_000_000);
      expect(await a.integrations.get(netid)).toEqual(saved);
      const stored = await a.storedSecrets(netid);
      expect(SecretBox.isSealed(stored.password!)).toBe(true);
      expect(SecretBox.isSealed(stored.secret!)).toBe(true);
      await a.prefetch([netid]);
      expect(a.integrations.getSync(netid)).toEqual(saved);
      await a.prefetch(["NO-SUCH-CO"]);
      expect(a.integrations.getSync("NO-SUCH-CO")).toBeUndefined();
      const changed = { ...saved, deliveryUrl: "https://y.example/in", webhookSecret: null };
      await a.integrations.save(changed, 1_700_000_001);
      await a.prefetch([netid]);
      expect(a.integrations.getSync(netid)).toEqual(changed);

      await a.storePlainSecrets(netid, "plain-pass", "plain-secret");
      expect(await a.sealStored()).toBe(1);
      const resealed = await a.storedSecrets(netid);
      expect(SecretBox.isSealed(resealed.password!) && SecretBox.isSealed(resealed.secret!)).toBe(true);
      expect(await a.integrations.get(netid)).toEqual({ ...changed, deliveryAuth: { username: "user", password: "plain-pass" }, webhookSecret: "plain-secret" });
      expect(await a.sealStored()).toBe(0);
    });
  });

  describe("provider fleet", () => {
    test("activeEntries: the provider's active entries, airports as a list", async () => {
      const netid = `FLEET-${tag}`;
      await a.companies.createWithFirstUser(company(netid), { uid: `u-${netid}`, netid, email: `${netid.toLowerCase()}@example.com`, passwordHash: "h", createdAt: 1 });
      await a.insertFleet(netid, `${netid}-a`, true, "SFO,OAK");
      await a.insertFleet(netid, `${netid}-b`, false, "SFO");
      await a.insertFleet(netid, `${netid}-c`, true, "");
      const entries = (await a.fleet.activeEntries(netid)).sort((x, y) => x.slug.localeCompare(y.slug));
      expect(entries.map((e) => [e.slug, e.airports, e.active])).toEqual([
        [`${netid}-a`, ["SFO", "OAK"], true],
        [`${netid}-c`, [], true],
      ]);
      expect(entries[0]).toEqual({ ...fleetRow(netid, `${netid}-a`, true, "SFO,OAK"), airports: ["SFO", "OAK"] });
      expect(await a.fleet.activeEntries("NOBODY")).toEqual([]);
    });

    test("activeEntriesListing follows every insert, change and removal; activeEntriesBySlug reads the provider's active ones", async () => {
      const netid = `LIST-${tag}`;
      const other = `LISTX-${tag}`;
      for (const n of [netid, other])
        await a.companies.createWithFirstUser(company(n), { uid: `u-${n}`, netid: n, email: `${n.toLowerCase()}@example.com`, passwordHash: "h", createdAt: 1 });
      await a.insertFleet(netid, `${netid}-a`, true, "JFK,LGA");
      await a.insertFleet(netid, `${netid}-b`, true, "EWR");
      await a.insertFleet(netid, `${netid}-c`, false, "JFK");
      await a.insertFleet(other, `${other}-a`, true, "JFK");
      const listing = async (code: string) => (await a.fleet.activeEntriesListing(netid, code)).map((e) => e.slug).sort();
      expect(await listing("JFK")).toEqual([`${netid}-a`]);
      expect(await listing("LGA")).toEqual([`${netid}-a`]);
      expect(await listing("SFO")).toEqual([]);
      await a.changeFleet(`${netid}-b`, "EWR,JFK", true);
      await a.changeFleet(`${netid}-c`, "JFK", true);
      await a.changeFleet(`${netid}-a`, "LGA", true);
      expect(await listing("JFK")).toEqual([`${netid}-b`, `${netid}-c`]);
      expect(await listing("LGA")).toEqual([`${netid}-a`]);
      await a.removeFleet(`${netid}-b`);
      await a.changeFleet(`${netid}-c`, "JFK", false);
      expect(await listing("JFK")).toEqual([]);
      expect(await listing("EWR")).toEqual([]);
      const bySlug = await a.fleet.activeEntriesBySlug(netid, [`${netid}-a`, `${netid}-c`, `${other}-a`, "missing"]);
      expect(bySlug.map((e) => e.slug)).toEqual([`${netid}-a`]);
      expect(bySlug[0].airports).toEqual(["LGA"]);
    });

    test("activeEntriesListingBeyond: the entries listing the airport that a circle around it cannot hold (no position, or beyond the radius)", async () => {
      const netid = `FAR-${tag}`;
      await a.companies.createWithFirstUser(company(netid), { uid: `u-${netid}`, netid, email: `${netid.toLowerCase()}@example.com`, passwordHash: "h", createdAt: 1 });
      const jfk = { lat: 40.6398, lon: -73.7787 };
      for (const slug of ["at-jfk", "manhattan", "atlanta", "no-gps", "retired-far"]) await a.insertFleet(netid, `${netid}-${slug}`, true, "JFK");
      await a.changeFleet(`${netid}-at-jfk`, "JFK", true, jfk);
      await a.changeFleet(`${netid}-manhattan`, "JFK", true, { lat: 40.758, lon: -73.9855 }); // ~21 km
      await a.changeFleet(`${netid}-atlanta`, "JFK", true, { lat: 33.6407, lon: -84.4277 });
      await a.changeFleet(`${netid}-no-gps`, "JFK", true, { lat: null, lon: null });
      await a.changeFleet(`${netid}-retired-far`, "JFK", false, { lat: 33.6407, lon: -84.4277 });
      const beyond = async (km: number) => (await a.fleet.activeEntriesListingBeyond(netid, "JFK", jfk, km)).map((e) => e.slug.slice(netid.length + 1)).sort();
      expect(await beyond(50)).toEqual(["atlanta", "no-gps"]);
      expect(await beyond(10)).toEqual(["atlanta", "manhattan", "no-gps"]);
      expect(await beyond(2000)).toEqual(["no-gps"]);
      expect(await a.fleet.activeEntriesListingBeyond(netid, "LGA", jfk, 50)).toEqual([]);
    });
  });
});
