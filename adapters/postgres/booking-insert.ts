import { getTableColumns } from "drizzle-orm";
import type { SQL } from "bun";
import type { NewOutboxMessage } from "../../domain/delivery/ports";
import { distinctBodies, type NewLiveEvent } from "../../domain/events/live-events";
import type { BookingRow } from "./booking-rows";
import type { PgTx } from "./booking-repository";
import { bookings } from "./schema";
import { COUNT_USAGE } from "./live-event-log";

/** The bookings table's columns in one fixed order: [property of the row, column name]. */
const COLUMNS: Array<[keyof BookingRow, string]> = Object.entries(getTableColumns(bookings)).map(([property, column]) => [
  property as keyof BookingRow,
  column.name,
]);
const OUTBOX = COLUMNS.length + 1;
const LIVE = COLUMNS.length + 2;
const BODIES = COLUMNS.length + 3;

/**
 * A new booking, its outbox rows and its live events in ONE statement (one round trip, prepared once per pooled
 * connection: the text never changes): the booking is inserted unless its (requester, requesterResNo) is taken
 * (`ON CONFLICT DO NOTHING`, which waits for a concurrent inserter of the same number to end), and the outbox rows
 * and live events (each body once, in live_event_bodies, its bytes counted in live_event_usage) only when it was.
 * The rows travel as JSON (`json_to_recordset`, in their order: outbox ids keep the order the announcer gave).
 * Answers 1 when inserted, 0 when the number was taken.
 */
const TEXT = `WITH b AS (
  INSERT INTO bookings (${COLUMNS.map(([, name]) => `"${name}"`).join(", ")})
  VALUES (${COLUMNS.map((_, i) => `$${i + 1}`).join(", ")})
  ON CONFLICT ("requester_id", "requester_res_no") DO NOTHING
  RETURNING 1
), o AS (
  INSERT INTO outbox_messages (event_id, channel, event_type, transaction_id, target_netid, url, body, status, attempts, next_attempt_at, created_at)
  SELECT m."eventId", m.channel, m."eventType", m."transactionId", m."targetNetid", m.url, m.body, 'pending', 0, m.at, floor(m.at)::bigint
    FROM ROWS FROM (json_to_recordset($${OUTBOX}::text::json) AS (
           "eventId" text, channel text, "eventType" text, "transactionId" text, "targetNetid" text, url text, body text, at float8))
         WITH ORDINALITY AS m("eventId", channel, "eventType", "transactionId", "targetNetid", url, body, at, i)
   WHERE EXISTS (SELECT 1 FROM b)
   ORDER BY m.i
), inserted AS (
  INSERT INTO live_event_bodies (id, netid, bytes, body, created_at)
  SELECT d."bodyId", d.payer, d.bytes, d.body, d."createdAt"
    FROM json_to_recordset($${BODIES}::text::json) AS d("bodyId" text, payer text, bytes bigint, body text, "createdAt" bigint)
   WHERE EXISTS (SELECT 1 FROM b)
  ON CONFLICT (id) DO NOTHING
  RETURNING netid, bytes, created_at
), ${COUNT_USAGE}, l AS (
  INSERT INTO live_events (netid, transaction_id, kind, role, type, body, body_id, created_at)
  SELECT e.netid, e."transactionId", e.kind, e.role, e.type, '', e."bodyId", e."createdAt"
    FROM ROWS FROM (json_to_recordset($${LIVE}::text::json) AS (
           netid text, "transactionId" text, kind text, role text, type text, "bodyId" text, "createdAt" bigint))
         WITH ORDINALITY AS e(netid, "transactionId", kind, role, type, "bodyId", "createdAt", i)
   WHERE EXISTS (SELECT 1 FROM b)
   ORDER BY e.i
)
SELECT count(*)::int AS n FROM b`;

/** The Bun client a drizzle transaction (or savepoint) runs on: fixed SQL goes straight to it, on that connection. */
export function clientOf(tx: PgTx): SQL {
  const client = (tx as unknown as { session?: { client?: SQL } }).session?.client;
  if (!client || typeof client.unsafe !== "function") throw new Error("drizzle's transaction no longer exposes its Bun client (session.client)");
  return client;
}

/**
 * Inserts a new booking with its announcements in `tx` unless the requester's number is taken; whether it did.
 * Nothing is written when it did not.
 */
export async function insertNewBooking(
  tx: PgTx,
  row: BookingRow,
  messages: ReadonlyArray<{ message: NewOutboxMessage; at: number }>,
  live: readonly NewLiveEvent[],
): Promise<boolean> {
  const params: unknown[] = COLUMNS.map(([property]) => row[property]);
  params.push(
    JSON.stringify(messages.map(({ message, at }) => ({ ...message, at }))),
    JSON.stringify(live.map(({ body: _body, ...row }) => row)),
    JSON.stringify(distinctBodies(live)),
  );
  const [result] = await clientOf(tx).unsafe<Array<{ n: number }>>(TEXT, params);
  return result?.n === 1;
}
