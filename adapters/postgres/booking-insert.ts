import { getTableColumns } from "drizzle-orm";
import type { SQL } from "bun";
import type { NewOutboxMessage } from "../../domain/delivery/ports";
import { distinctBodies, type NewLiveEvent } from "../../domain/events/live-events";
import type { Booking, BookingEvent } from "../../domain/trips/booking";
import type { Decision } from "../../domain/trips/ports";
import { historyCapped } from "../../domain/trips/booking-bounds";
import type { BookingRow } from "./booking-rows";
import type { PgTx } from "./booking-change";
import { bookings } from "./schema";
import { COUNT_USAGE } from "./live-event-log";

/** The bookings table's columns in one fixed order: [property of the row, column name, SQL type]. */
const COLUMNS: Array<[keyof BookingRow, string, string]> = Object.entries(getTableColumns(bookings)).map(([property, column]) => [
  property as keyof BookingRow,
  column.name,
  column.getSQLType(),
]);
const NAMES = COLUMNS.map(([, name]) => `"${name}"`).join(", ");

/**
 * New bookings, their outbox rows and their live events in ONE statement (one round trip, prepared once per pooled
 * connection: the text never changes, whatever the number of bookings): each booking is inserted unless its
 * (requester, requesterResNo) is taken (`ON CONFLICT DO NOTHING`, which waits for a concurrent inserter of the same
 * number to end), and the outbox rows and live events of the bookings inserted only (each body once, in
 * live_event_bodies, its bytes counted in live_event_usage). Every kind of row travels as one JSON array
 * (`json_to_recordset`), in its order: bookings in the group's order, outbox ids in the order the announcer gave.
 * Answers the transaction ids of the bookings inserted. A group's new bookings share the statement's fixed cost
 * (docs/performance.md#what-a-sendtrip-new-costs-postgresql-statement-by-statement-issue-50).
 */
const TEXT = `WITH b AS (
  INSERT INTO bookings (${NAMES})
  SELECT ${NAMES}
    FROM ROWS FROM (json_to_recordset($1::text::json) AS (${COLUMNS.map(([, name, type]) => `"${name}" ${type}`).join(", ")}))
         WITH ORDINALITY AS r(${NAMES}, i)
   ORDER BY r.i
  ON CONFLICT ("requester_id", "requester_res_no") DO NOTHING
  RETURNING transaction_id
), o AS (
  INSERT INTO outbox_messages (event_id, channel, event_type, transaction_id, target_netid, url, body, status, attempts, next_attempt_at, created_at)
  SELECT m."eventId", m.channel, m."eventType", m."transactionId", m."targetNetid", m.url, m.body, 'pending', 0, m.at, floor(m.at)::bigint
    FROM ROWS FROM (json_to_recordset($2::text::json) AS (
           "eventId" text, channel text, "eventType" text, "transactionId" text, "targetNetid" text, url text, body text, at float8))
         WITH ORDINALITY AS m("eventId", channel, "eventType", "transactionId", "targetNetid", url, body, at, i)
   WHERE m."transactionId" IN (SELECT transaction_id FROM b)
   ORDER BY m.i
), inserted AS (
  INSERT INTO live_event_bodies (id, netid, bytes, body, created_at)
  SELECT d."bodyId", d.payer, d.bytes, d.body, d."createdAt"
    FROM json_to_recordset($3::text::json) AS d("transactionId" text, "bodyId" text, payer text, bytes bigint, body text, "createdAt" bigint)
   WHERE d."transactionId" IN (SELECT transaction_id FROM b)
  ON CONFLICT (id) DO NOTHING
  RETURNING netid, bytes, created_at
), ${COUNT_USAGE}, l AS (
  INSERT INTO live_events (netid, transaction_id, kind, role, type, body, body_id, created_at)
  SELECT e.netid, e."transactionId", e.kind, e.role, e.type, '', e."bodyId", e."createdAt"
    FROM ROWS FROM (json_to_recordset($4::text::json) AS (
           netid text, "transactionId" text, kind text, role text, type text, "bodyId" text, "createdAt" bigint))
         WITH ORDINALITY AS e(netid, "transactionId", kind, role, type, "bodyId", "createdAt", i)
   WHERE e."transactionId" IN (SELECT transaction_id FROM b)
   ORDER BY e.i
)
SELECT transaction_id AS "transactionId" FROM b`;

/** The Bun client a drizzle transaction (or savepoint) runs on: fixed SQL goes straight to it, on that connection. */
export function clientOf(tx: PgTx): SQL {
  const client = (tx as unknown as { session?: { client?: SQL } }).session?.client;
  if (!client || typeof client.unsafe !== "function") throw new Error("drizzle's transaction no longer exposes its Bun client (session.client)");
  return client;
}

/** A new booking's row and what its creation announces. */
export interface NewBooking {
  row: BookingRow;
  messages: ReadonlyArray<{ message: NewOutboxMessage; at: number }>;
  live: readonly NewLiveEvent[];
}

/**
 * Inserts the new bookings with their announcements in `tx`, each unless its requester's number is taken; the
 * transaction ids of those it inserted. Nothing of a booking not inserted is written.
 */
export async function insertNewBookings(tx: PgTx, created: readonly NewBooking[]): Promise<Set<string>> {
  const rows: Array<Record<string, unknown>> = [];
  const messages: unknown[] = [];
  const bodies: unknown[] = [];
  const live: unknown[] = [];
  for (const { row, messages: announced, live: events } of created) {
    const record: Record<string, unknown> = {};
    for (const [property, name] of COLUMNS) record[name] = row[property];
    rows.push(record);
    for (const { message, at } of announced) messages.push({ ...message, at });
    for (const { bodyId, payer, bytes, body, createdAt } of distinctBodies(events))
      bodies.push({ transactionId: row.transactionId, bodyId, payer, bytes, body, createdAt });
    for (const { body: _body, ...event } of events) live.push(event);
  }
  const params = [JSON.stringify(rows), JSON.stringify(messages), JSON.stringify(bodies), JSON.stringify(live)];
  const inserted = await clientOf(tx).unsafe<Array<{ transactionId: string }>>(TEXT, params);
  return new Set(inserted.map((r) => r.transactionId));
}

/** A change decided as if no booking had its number, when that creates one: what to insert and what to answer. */
export interface NewDecided<R> {
  booking: Booking;
  events: BookingEvent[];
  result: R;
}

/**
 * `decide` on no booking, when that creates one that the one-statement insert may write; undefined otherwise (a
 * refusal may not hold for the booking that exists: a resent NEW is never refused; it is decided on it instead).
 */
export function newDecided<R>(decide: (current: Booking | undefined) => Decision<R>): NewDecided<R> | undefined {
  let decision: Decision<R>;
  try {
    decision = historyCapped(decide(undefined));
  } catch {
    return undefined;
  }
  const write = decision.write;
  // A new booking never carries a provider's number: one that would (none does today) takes the careful path.
  if (!write || write.booking.providerResNo !== null) return undefined;
  return { booking: write.booking, events: write.events, result: decision.result };
}
