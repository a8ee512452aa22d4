import { afterEach, expect, test } from "bun:test";
import { createHarness } from "../../support/harness";

// docs/security.md#delivery-and-limits: one company's backlog cannot hide another company's due message from the worker (both databases).
const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** A delivery of message `n` to `targetNetid` (its endpoint never answers: only the order of reads is looked at). */
const message = (targetNetid: string, n: number) => ({
  eventId: crypto.randomUUID(),
  channel: "delivery" as const,
  eventType: "trip.new",
  transactionId: `tx-${targetNetid}-${n}`,
  targetNetid,
  url: "http://127.0.0.1:9/farm-in",
  body: "{}",
});

test("a read of due messages offers at most 16 of one company, so a later company's message is in the first page", async () => {
  const h = createHarness();
  cleanups.push(() => h.close());
  const at = Date.now() / 1000 - 10;
  for (let n = 0; n < 600; n++) await h.services.outbox.enqueue(message("TARPIT", n), at);
  const healthy = await h.services.outbox.enqueue(message("HEALTHY", 0), at + 5);
  const page = await h.services.outbox.due(Date.now() / 1000, 64, 0);
  expect(page.filter((m) => m.targetNetid === "TARPIT")).toHaveLength(16);
  expect(page.map((m) => m.id)).toContain(healthy.id);
  // In due order still: the tarpit's oldest first, the healthy message after them.
  expect(page.at(-1)!.id).toBe(healthy.id);
});

test("the successive reads of one poll offer a company at most 16 in all, so a healthy company's newer message is read", async () => {
  // PostgreSQL claims what it offers and ignores the offset: each read used to rank only the unclaimed messages and
  // offered every company 16 more, so 16 tarpit companies' backlogs filled the poll's 8 reads (bench fair-delivery).
  const h = createHarness();
  cleanups.push(() => h.close());
  const at = Date.now() / 1000 - 100;
  for (let n = 0; n < 40; n++) for (let c = 0; c < 16; c++) await h.services.outbox.enqueue(message(`TARPIT-${c}`, n), at + n);
  const healthy = await h.services.outbox.enqueue(message("HEALTHY", 0), at + 50);
  const offered: Array<{ id: number; targetNetid: string }> = [];
  // As the worker reads: pages of 64, at most 8 per poll.
  for (let page = 0; page < 8; page++) {
    const rows = await h.services.outbox.due(Date.now() / 1000, 64, page * 64);
    offered.push(...rows);
    if (rows.length < 64) break;
  }
  const perCompany = new Map<string, number>();
  for (const m of offered) perCompany.set(m.targetNetid, (perCompany.get(m.targetNetid) ?? 0) + 1);
  expect(Math.max(...perCompany.values())).toBe(16);
  expect(offered.map((m) => m.id)).toContain(healthy.id);
  expect(offered).toHaveLength(16 * 16 + 1);
});
