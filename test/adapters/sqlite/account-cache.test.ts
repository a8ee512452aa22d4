import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { migrate, openDatabase, type Db } from "../../../adapters/sqlite/db";
import { AccountCache } from "../../../adapters/sqlite/account-cache";
import { SqliteUserRepository } from "../../../adapters/sqlite/account-repositories";
import { tempDir } from "../../support/process";

/** One migrated database file, the service's connection to it and another process's (a CLI command's). */
function twoConnections() {
  const path = join(tempDir("tripswitch-accounts-"), "db.sqlite");
  const service = openDatabase(path);
  migrate(service);
  const other = openDatabase(path);
  other.$client.exec(
    "INSERT INTO companies (netid, netid_lower, name, co_type, plan, main_email, main_phone, created_at) VALUES ('ACME-LIMO', 'acme-limo', 'Acme', 'CO', 'FREE', 'ops@acme.example', '+12125550100', 0)",
  );
  other.$client.exec("INSERT INTO users (uid, uid_lower, netid, email, password_hash, created_at) VALUES ('acme', 'acme', 'ACME-LIMO', 'ops@acme.example', 'x', 0)");
  return { service, other };
}

/** Past the cache's once-a-millisecond look at other connections' commits. */
const nextLook = () => Bun.sleep(3);

const stamp = (db: Db) => db.$client.query<{ n: number }, []>("SELECT n FROM account_generation WHERE id = 1").get()?.n;

/** The service connection's cache holding ACME's caller, and its count of clears for other connections' commits. */
async function cachedCaller() {
  const { service, other } = twoConnections();
  const users = new SqliteUserRepository(service);
  expect((await users.findCaller("acme"))?.plan).toBe("FREE");
  const cache = AccountCache.of(service);
  return { other, users, cache, before: cache.externalClears };
}

describe("account cache and commits by other connections", () => {
  test("a commit elsewhere that changes no account table leaves the cache as it is", async () => {
    const { other, users, cache, before } = await cachedCaller();
    // What the booking writer and the delivery worker commit: rows of other tables.
    other.$client.exec("INSERT INTO login_failures (key, at) VALUES ('x', 1)");
    other.$client.exec("INSERT INTO audit_events (type, at, detail) VALUES ('test', 1, 'not an account change')");
    await nextLook();
    expect((await users.findCaller("acme"))?.plan).toBe("FREE");
    expect(cache.externalClears).toBe(before);
  });

  test("an account change committed elsewhere is seen by the next request", async () => {
    const { other, users, cache, before } = await cachedCaller();
    other.$client.exec("UPDATE companies SET plan = 'ENTERPRISE' WHERE netid = 'ACME-LIMO'");
    await nextLook();
    expect((await users.findCaller("acme"))?.plan).toBe("ENTERPRISE");
    expect(cache.externalClears).toBe(before + 1);
    other.$client.exec("DELETE FROM users WHERE uid = 'acme'");
    await nextLook();
    expect(await users.findCaller("acme")).toBeUndefined();
  });

  test("every insert, update and delete on an account table moves the stamp, in the same transaction", () => {
    const { other } = twoConnections();
    const sqlite = other.$client;
    const statements = [
      "INSERT INTO companies (netid, netid_lower, name, co_type, plan, main_email, main_phone, created_at) VALUES ('BLUE', 'blue', 'Blue', 'CO', 'FREE', 'b@blue.example', '+12125550101', 0)",
      "UPDATE companies SET name = 'Blue Cars' WHERE netid = 'BLUE'",
      "INSERT INTO users (uid, uid_lower, netid, email, password_hash, created_at) VALUES ('blue', 'blue', 'BLUE', 'b@blue.example', 'x', 0)",
      "UPDATE users SET password_hash = 'y' WHERE uid = 'blue'",
      "INSERT INTO platform_tokens (token_hash, uid, created_at) VALUES ('h1', 'blue', 0)",
      "UPDATE platform_tokens SET released_at = 1 WHERE token_hash = 'h1'",
      "DELETE FROM platform_tokens WHERE token_hash = 'h1'",
      "INSERT INTO company_integrations (netid, delivery_url, webhook_secret, updated_at) VALUES ('BLUE', 'http://127.0.0.1:9/x', 's', 0)",
      "UPDATE company_integrations SET delivery_url = NULL WHERE netid = 'BLUE'",
      "DELETE FROM company_integrations WHERE netid = 'BLUE'",
      "DELETE FROM users WHERE uid = 'blue'",
      "DELETE FROM companies WHERE netid = 'BLUE'",
    ];
    for (const statement of statements) {
      const before = stamp(other)!;
      sqlite.exec(statement);
      expect({ statement, moved: stamp(other)! > before }).toEqual({ statement, moved: true });
    }
    // A rolled-back change leaves it as it was.
    const before = stamp(other);
    sqlite.exec("BEGIN");
    sqlite.exec("UPDATE companies SET plan = 'ENTERPRISE' WHERE netid = 'ACME-LIMO'");
    sqlite.exec("ROLLBACK");
    expect(stamp(other)).toBe(before);
  });

  test("on a database without the stamp table, any commit elsewhere empties the cache (the old rule)", async () => {
    const { service, other } = twoConnections();
    service.$client.exec("DROP TABLE account_generation");
    // A fresh connection: its cache is made without the stamp.
    const old = openDatabase(service.$client.filename);
    const users = new SqliteUserRepository(old);
    expect((await users.findCaller("acme"))?.plan).toBe("FREE");
    const cache = AccountCache.of(old);
    const before = cache.externalClears;
    other.$client.exec("INSERT INTO login_failures (key, at) VALUES ('x', 1)");
    await nextLook();
    await users.findCaller("acme");
    expect(cache.externalClears).toBe(before + 1);
  });
});
