import { afterEach, describe, expect, test } from "bun:test";
import { createHarness, type Harness } from "../../support/harness";
import { RETENTION as DEFAULT_RETENTION } from "../../../domain/retention";
import { pruneExpired } from "../../../adapters/sqlite/retention";

let h: Harness;
afterEach(() => h?.close());

const DAY = 86400;

describe("retention", () => {
  test("prunes delivered outbox rows, old audit rows, released tokens, old login failures and idempotency keys; keeps the rest", async () => {
    h = createHarness();
    const c = await h.registerCompany();
    const sqlite = h.db.$client;
    const now = 1_800_000_000;
    const outbox = (eventId: string, status: string, deliveredAt: number | null) =>
      sqlite
        .query("INSERT INTO outbox_messages (event_id, channel, event_type, transaction_id, target_netid, url, body, status, attempts, next_attempt_at, created_at, delivered_at) VALUES (?, 'webhook', 'booking.updated', 'tx', ?, 'https://x.example', '{}', ?, 1, 0, 0, ?)")
        .run(eventId, c.netid, status, deliveredAt);
    outbox("old-delivered", "delivered", now - 8 * DAY);
    outbox("new-delivered", "delivered", now - 1 * DAY);
    outbox("old-failed", "failed", null);
    outbox("old-pending", "pending", null);
    const audit = sqlite.query("INSERT INTO audit_events (at, type, detail) VALUES (?, 'access.denied', ?)");
    audit.run(now - 91 * DAY, "old");
    audit.run(now - 1 * DAY, "new");
    const token = sqlite.query("INSERT INTO platform_tokens (token_hash, uid, created_at, released_at) VALUES (?, ?, 0, ?)");
    token.run("released-long-ago", c.netid, now - 2 * DAY);
    token.run("released-just-now", c.netid, now - 60);
    token.run("still-active", c.netid, null);
    const revoked = sqlite.query("INSERT INTO revoked_tokens (token_id, expires_at) VALUES (?, ?)");
    revoked.run("expired-long-ago", now - 3600);
    revoked.run("still-valid", now + 600);
    const failure = sqlite.query("INSERT INTO login_failures (key, at) VALUES ('uid:x', ?)");
    failure.run(now - 2 * 3600);
    failure.run(now - 60);
    const key = sqlite.query("INSERT INTO idempotency_keys (netid, key, request_hash, status, body, created_at) VALUES (?, ?, 'h', 200, '{}', ?)");
    key.run(c.netid, "old", now - 2 * DAY);
    key.run(c.netid, "new", now - 60);

    const live = sqlite.query("INSERT INTO live_events (netid, transaction_id, kind, role, type, body, created_at) VALUES ('x', 'tx', 'booking', 'requester', 'booking.updated', ?, ?)");
    live.run("old", now - 26 * 3600);
    live.run("new", now - 23 * 3600);

    // An earlier offer is kept while its booking is within the provider record's 90 days (docs/terms.md#provider-record).
    const earlier = sqlite.query("INSERT INTO earlier_offers (transaction_id, provider_id, submit_date) VALUES (?, 'P', ?)");
    earlier.run("old", now - 91 * DAY);
    earlier.run("new", now - 89 * DAY);

    const deleted = pruneExpired(sqlite, now);
    expect(deleted).toEqual({
      outbox_messages: 1, audit_events: 1, platform_tokens: 1, revoked_tokens: 1, login_failures: 1, idempotency_keys: 1, live_events: 1,
      live_event_bodies: 0, network_quotes: 0, network_quote_usage: 0, earlier_offers: 1, cost_recoveries: 0, statement_disputes: 0,
    });
    expect(sqlite.query<{ v: string }, []>("SELECT transaction_id AS v FROM earlier_offers").all().map((r) => r.v)).toEqual(["new"]);
    expect(sqlite.query<{ v: string }, []>("SELECT token_id AS v FROM revoked_tokens").all().map((r) => r.v)).toEqual(["still-valid"]);
    // An event stream resumes for at least 24 h: newer live events stay.
    expect(sqlite.query<{ v: string }, []>("SELECT body AS v FROM live_events").all().map((r) => r.v)).toEqual(["new"]);
    const col = (sql: string) => sqlite.query<{ v: string }, []>(sql).all().map((r) => r.v);
    expect(col("SELECT event_id AS v FROM outbox_messages ORDER BY v")).toEqual(["new-delivered", "old-failed", "old-pending"]);
    expect(col("SELECT detail AS v FROM audit_events WHERE detail IN ('old', 'new')")).toEqual(["new"]);
    expect(col("SELECT token_hash AS v FROM platform_tokens ORDER BY v")).toEqual(["released-just-now", "still-active"]);
    expect(col("SELECT key AS v FROM idempotency_keys")).toEqual(["new"]);
    expect(DEFAULT_RETENTION.deliveredOutbox).toBe(7 * DAY);
    // A second run finds nothing more.
    expect(Object.values(pruneExpired(sqlite, now)).every((n) => n === 0)).toBe(true);
  });
});
