import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Database } from "bun:sqlite";
import { migrate, openDatabase } from "../../../adapters/sqlite/db";
import { SqliteNetworkQuoteRepository } from "../../../adapters/sqlite/network-quote-repository";
import type { NetworkQuote } from "../../../domain/pricing/network-quote";

const dir = mkdtempSync(join(tmpdir(), "tripswitch-network-quotes-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function quote(quoteId: string): NetworkQuote {
  return { quoteId, makerNetid: "MAKER", makerUid: "maker-user", createdAt: 1, validUntil: 86_401, currency: null, trip: { passengerCount: "2" }, pricedTrip: "{}", options: [], warnings: [] };
}

describe("SQLite network quotes: committed without waiting for an fsync", () => {
  test("the insert alone runs with synchronous=NORMAL, the connection's FULL comes back, and another connection reads it at once", async () => {
    const path = join(dir, "quotes.sqlite");
    const db = openDatabase(path);
    migrate(db);
    db.$client.run("INSERT INTO companies (netid, netid_lower, name, co_type, plan, main_email, main_phone, created_at) VALUES ('MAKER', 'maker', 'Maker', 'IO', 'free', 'maker@example.com', '+15550100', 0)");
    const repo = new SqliteNetworkQuoteRepository(db);
    expect(repo.relaxedCommit).toBe(true);
    // Every statement run on the connection during the save, in order.
    const seen: string[] = [];
    const exec = db.$client.exec.bind(db.$client);
    db.$client.exec = ((sql: string, ...rest: unknown[]) => {
      seen.push(sql);
      return (exec as (...a: unknown[]) => unknown)(sql, ...rest);
    }) as typeof db.$client.exec;
    await repo.save(quote("0190a6f0-0000-7000-8000-000000000001"), 200);
    db.$client.exec = exec;
    expect(seen).toEqual(["PRAGMA synchronous = NORMAL", "PRAGMA synchronous = 2"]);
    expect(db.$client.query<{ synchronous: number }, []>("PRAGMA synchronous").get()?.synchronous).toBe(2);

    const other = new Database(path, { readonly: true });
    expect(other.query<{ n: number }, [string]>("SELECT count(*) AS n FROM network_quotes WHERE quote_id = ?").get("0190a6f0-0000-7000-8000-000000000001")?.n).toBe(1);
    other.close();
    expect((await repo.find("0190a6f0-0000-7000-8000-000000000001"))?.makerNetid).toBe("MAKER");
    db.$client.close();
  });

  test("an in-memory database (no WAL, nothing to fsync) inserts as it is", async () => {
    const db = openDatabase(":memory:");
    migrate(db);
    db.$client.run("INSERT INTO companies (netid, netid_lower, name, co_type, plan, main_email, main_phone, created_at) VALUES ('MAKER', 'maker', 'Maker', 'IO', 'free', 'maker@example.com', '+15550100', 0)");
    const repo = new SqliteNetworkQuoteRepository(db);
    expect(repo.relaxedCommit).toBe(false);
    await repo.save(quote("0190a6f0-0000-7000-8000-000000000002"), 200);
    expect((await repo.find("0190a6f0-0000-7000-8000-000000000002"))?.quoteId).toBe("0190a6f0-0000-7000-8000-000000000002");
    db.$client.close();
  });
});
