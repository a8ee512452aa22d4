// The network quote store's contract, run unchanged against both adapters: a quote reads back whole, an unknown id is
// nothing, retention removes a quote a day past its validity (not before), and the bytes a company keeps are counted
// with its quotes and leave the count with them.
import { beforeAll, expect, test } from "bun:test";
import type { NetworkQuote } from "../../../domain/pricing/network-quote";
import type { NetworkQuoteRepository } from "../../../domain/pricing/ports";
import { SqliteNetworkQuoteRepository } from "../../../adapters/sqlite/network-quote-repository";
import { PgNetworkQuoteRepository } from "../../../adapters/postgres/network-quote-repository";
import { pruneExpired } from "../../../adapters/sqlite/retention";
import { prunePgExpired } from "../../../adapters/postgres/retention";
import { describeOnBoth, onPostgres, onSqlite } from "./databases";

interface Store {
  quotes: NetworkQuoteRepository;
  run(sqlText: string, ...params: unknown[]): Promise<unknown>;
  prune(now: number): Promise<unknown>;
}

const COMPANY = "INSERT INTO companies (netid, netid_lower, name, co_type, plan, main_email, main_phone, created_at) VALUES ('NQ-MAKER', 'nq-maker', 'Maker', 'CO', 'FREE', 'm@example.com', '+12125550199', 0)";

const adapters = [
  onSqlite<Store>((db) => ({
    quotes: new SqliteNetworkQuoteRepository(db),
    run: async (sqlText, ...params) => db.$client.query(sqlText).run(...(params as never[])),
    prune: async (now) => pruneExpired(db.$client, now),
  })),
  onPostgres<Store>((db) => ({
    quotes: new PgNetworkQuoteRepository(db),
    run: (sqlText, ...params) => db.$client.unsafe(sqlText, params as never[]),
    prune: (now) => prunePgExpired(db, now),
  })),
];

const quote = (quoteId: string, validUntil: number): NetworkQuote => ({
  quoteId,
  makerNetid: "NQ-MAKER",
  makerUid: "NQ-MAKER",
  createdAt: validUntil - 86400,
  validUntil,
  currency: "JPY",
  trip: { passengerCount: "2", locations: { pickup: { address: "HND", time: "2027-01-01T08:00:00" } }, "x-custom": { a: [1, "b"] } },
  pricedTrip: '{"passengerCount":"2"}',
  options: [
    { quoteOptionId: "P:car", provider: { netid: "P", name: "P Co" }, code: "car", name: "Car", description: "", vehType: "SEDAN", passengerCount: "3", fee: "5000", currency: "JPY", nearestKm: 1.2, images: [],
      breakdown: [{ kind: "BASE", id: "vehicle-rate", name: "Vehicle rate", amount: "5000" }] },
  ],
  warnings: [{ code: "OTHER_CURRENCIES_LEFT_OUT", message: "1 left out", count: 1, currencies: ["USD"] }],
});

describeOnBoth("network quotes", adapters, (s) => {
  beforeAll(async () => {
    await s.run(COMPANY);
  });

  test("a saved quote reads back whole; an unknown id is undefined", async () => {
    const q = quote("0193f1c2-6a3e-7b41-9d2c-5e8f0a1b2c3d", 2_000_000_000);
    await s.quotes.save(q, 1000);
    expect(await s.quotes.find(q.quoteId)).toEqual(q);
    expect(await s.quotes.find("0193f1c2-6a3e-7b41-9d2c-000000000000")).toBeUndefined();
  });

  test("retention removes a quote a day past its validUntil, and keeps one expired less than a day ago", async () => {
    const now = 1_900_000_000;
    const old = quote("0193f1c2-6a3e-7b41-9d2c-00000000000a", now - 86400 - 1);
    const recent = quote("0193f1c2-6a3e-7b41-9d2c-00000000000b", now - 3600);
    await s.quotes.save(old, 1000);
    await s.quotes.save(recent, 1000);
    await s.prune(now);
    expect(await s.quotes.find(old.quoteId)).toBeUndefined();
    expect(await s.quotes.find(recent.quoteId)).toEqual(recent);
  });

  test("a save counts its bytes to its maker's hour; keptSince sums from the hour holding the time; retention drops an hour with its quotes", async () => {
    const hour = 2_100_000_000 - (2_100_000_000 % 3600);
    const at = (created: number, id: string) => ({ ...quote(id, created + 86400), createdAt: created });
    await s.quotes.save(at(hour + 10, "0193f1c2-6a3e-7b41-9d2c-0000000000c1"), 1000);
    await s.quotes.save(at(hour + 20, "0193f1c2-6a3e-7b41-9d2c-0000000000c2"), 2500);
    await s.quotes.save(at(hour + 3600, "0193f1c2-6a3e-7b41-9d2c-0000000000c3"), 700);
    expect(await s.quotes.keptSince("NQ-MAKER", hour + 1800)).toEqual({ bytes: 4200, since: hour });
    expect(await s.quotes.keptSince("NQ-MAKER", hour + 3600)).toEqual({ bytes: 700, since: hour + 3600 });
    expect(await s.quotes.keptSince("NQ-OTHER", hour)).toEqual({ bytes: 0 });
    // 48 h after the first hour ended, its quotes and its count are gone; the next hour's stay.
    await s.prune(hour + 3600 + 2 * 86400);
    expect(await s.quotes.find("0193f1c2-6a3e-7b41-9d2c-0000000000c2")).toBeUndefined();
    expect(await s.quotes.find("0193f1c2-6a3e-7b41-9d2c-0000000000c3")).toBeDefined();
    expect(await s.quotes.keptSince("NQ-MAKER", hour)).toEqual({ bytes: 700, since: hour + 3600 });
  });
});
