// Rate cards on PostgreSQL across two instances (docs/performance.md#rate-cards-issue-35, docs/deployment.md#several-instances-on-postgresql): each keeps the cards it read for a second;
// a re-read after that fetches only the cards whose text changed, so an unchanged card stays the same object (a
// network quote compiles a card once per object: ~0.2 ms for a card of 125 routes, on every card it meets) while a
// change or removal by the other instance is still seen — even one made within the same second as the card it replaces.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { migrate, openPostgres, type PgDb } from "../../../adapters/postgres/db";
import { PgAccountCache } from "../../../adapters/postgres/account-cache";
import { PgCompanyRepository } from "../../../adapters/postgres/account-repositories";
import { PgRateCardRepository } from "../../../adapters/postgres/rate-card-repository";
import type { RateCard } from "../../../domain/pricing/card";
import { startCluster, type PgCluster } from "../../../scripts/pg-cluster";

let pg: PgCluster;
const pools: PgDb[] = [];
let writer: PgRateCardRepository;
let reader: PgRateCardRepository;
let readerNow = 1_000_000;

const card = (price: string): RateCard =>
  ({
    currency: "USD",
    routes: [],
    distance: [{ id: "km", base: price, includedKm: 10, perKm: "2.40" }],
    hourly: [],
    surcharges: [],
    extras: [],
  }) as unknown as RateCard;

beforeAll(async () => {
  pg = await startCluster();
  pools.push(openPostgres(pg.url, { max: 2 }), openPostgres(pg.url, { max: 2 }));
  await migrate(pools[0].$client);
  const companies = new PgCompanyRepository(pools[0], new PgAccountCache());
  for (const netid of ["CARD-A", "CARD-B", "CARD-C"])
    await companies.createWithFirstUser(
      { netid, name: `${netid} Co`, coType: "IO", plan: "FREE", mainEmail: `${netid.toLowerCase()}@example.com`, mainPhone: `+4930${Bun.hash(netid) % 10_000_000n}`, address: null, notes: null, createdAt: 1 },
      { uid: netid, netid, email: `${netid.toLowerCase()}@example.com`, passwordHash: "x", createdAt: 1 },
    );
  writer = new PgRateCardRepository(pools[0]);
  reader = new PgRateCardRepository(pools[1], () => readerNow);
}, 120_000);

afterAll(async () => {
  for (const p of pools) await p.$client.close();
  await pg?.stop();
}, 60_000);

describe("rate cards kept per instance on PostgreSQL", () => {
  test("an unchanged card is the same object after each second's re-read; a change or removal by another instance is seen", async () => {
    await writer.put("CARD-A", card("60.00"), 100);
    await writer.put("CARD-B", card("70.00"), 100);
    const first = await reader.getMany(["CARD-A", "CARD-B", "CARD-C"]);
    expect([...first.keys()].sort()).toEqual(["CARD-A", "CARD-B"]);
    expect(first.get("CARD-A")!.card.distance[0].base).toBe("60.00");

    // Within the second: the copy kept, even when the other instance changed it meanwhile.
    await writer.put("CARD-B", card("75.00"), 100);
    readerNow += 500;
    expect((await reader.getMany(["CARD-B"])).get("CARD-B")).toBe(first.get("CARD-B")!);

    // After it: CARD-A unchanged is the same object; CARD-B, replaced in the same second (same updatedAt), is new.
    readerNow += 600;
    const second = await reader.getMany(["CARD-A", "CARD-B", "CARD-C"]);
    expect(second.get("CARD-A")).toBe(first.get("CARD-A")!);
    expect(second.get("CARD-B")).not.toBe(first.get("CARD-B")!);
    expect(second.get("CARD-B")!.card.distance[0].base).toBe("75.00");
    expect(second.get("CARD-B")!.updatedAt).toBe(100);

    // A card put by the reader's own instance and read back after the second is the object it put.
    const own = card("80.00");
    await reader.put("CARD-C", own, 200);
    readerNow += 1_100;
    const third = await reader.getMany(["CARD-A", "CARD-C"]);
    expect(third.get("CARD-C")!.card).toBe(own);
    expect(third.get("CARD-A")).toBe(first.get("CARD-A")!);

    // A removal by the other instance: gone after the second.
    expect(await writer.delete("CARD-A")).toBe(true);
    readerNow += 1_100;
    const fourth = await reader.getMany(["CARD-A", "CARD-B", "CARD-C"]);
    expect([...fourth.keys()].sort()).toEqual(["CARD-B", "CARD-C"]);
    expect(await reader.get("CARD-A")).toBeUndefined();
  });
});
