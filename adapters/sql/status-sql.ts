import { ENDED_STATUSES } from "../../domain/tracking/position";
import { TERMINAL_STATUSES } from "../../domain/trips/lifecycle";

/** Statuses as SQL string literals ('CLOSE', 'CANCEL', …): the same text in both databases. */
const literals = (statuses: Iterable<string>): string => [...statuses].map((s) => `'${s}'`).join(", ");

/** The statuses that end a booking, for `status IN (…)`: a provider's reservation number is free again after them. */
export const TERMINAL_STATUSES_SQL = literals(TERMINAL_STATUSES);

/**
 * The live events (`e`) a company may read: a requester's position row is left out once its booking's trip ended,
 * so a position never reaches the requester after the change that ended the trip (the two are read together).
 */
export const VISIBLE_LIVE_EVENT_SQL = `NOT (e.kind = 'position' AND e.role = 'requester'
  AND EXISTS (SELECT 1 FROM bookings b WHERE b.transaction_id = e.transaction_id AND b.status IN (${literals(ENDED_STATUSES)})))`;
