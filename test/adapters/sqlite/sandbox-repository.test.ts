import { expect, test } from "bun:test";
import { migrate, openDatabase } from "../../../adapters/sqlite/db";
import { OPEN_BOOKINGS_SQL, SqliteSandboxRepository } from "../../../adapters/sqlite/sandbox-repository";

test("the sandbox dispatcher's poll reads sandbox providers' open bookings through the index, never all bookings", async () => {
  const db = openDatabase(":memory:");
  migrate(db);
  const sqlite = db.$client;
  // Without a sandbox company the poll touches no booking at all (it ran a join that scanned every booking before).
  const insert = sqlite.prepare(
    `INSERT INTO bookings (transaction_id, requester_id, requester_res_no, provider_id, provider_res_no, status, reservation_type, userid, source_platform, target_platform, submit_date, pickup_date, updated_at, total_amount, quote_valid_until, content_hash, version, trip_packet, change_logs, transaction_errors)
     VALUES (?, 'REQ', ?, ?, NULL, ?, 'REGULAR', 'REQ', 'API', 'TRIPSWITCH', ?, 0, 0, NULL, NULL, 'h', 1, '{}', '[]', '[]')`,
  );
  for (let i = 0; i < 2000; i++) insert.run(`t-${i}`, `r-${i}`, i % 2 ? "SANDBOXCO" : "REALCO", i % 3 ? "CLOSE" : "CONFIRMED", i);
  const repo = new SqliteSandboxRepository(db);
  expect(await repo.open(50)).toEqual([]);
  sqlite.exec(`INSERT INTO companies (netid, netid_lower, name, co_type, plan, main_email, main_phone, created_at, sandbox) VALUES ('SANDBOXCO', 'sandboxco', 'S', 'IO', 'FREE', 's@x.example', '+12125550000', 0, 1)`);
  const open = await repo.open(5);
  expect(open.map((t) => t.transactionId)).toEqual(["t-3", "t-9", "t-15", "t-21", "t-27"]);
  expect(open.every((t) => t.providerId === "SANDBOXCO" && t.status === "CONFIRMED")).toBe(true);
  const plan = sqlite.query(`EXPLAIN QUERY PLAN ${OPEN_BOOKINGS_SQL}`).all("SANDBOXCO", 5) as Array<{ detail: string }>;
  expect(plan.map((p) => p.detail).join("\n")).toContain("USING INDEX bookings_provider_status (provider_id=? AND status=?)");
  db.$client.close();
});
