import { DomainError, TooLargeError } from "../errors";

/** 400: what a change would make has more members in one object than one body may have. */
export class TooManyMembersError extends DomainError {
  readonly code = "BOOKING_TOO_MANY_MEMBERS";
  constructor(
    message: string,
    readonly details: Record<string, unknown>,
  ) {
    super(message);
  }
}
import { capChangeLogs, capTransactionErrors } from "../history-cap";
import type { Booking } from "./booking";
import type { Decision } from "./decision";

/**
 * What one booking may hold as a whole: the limit of one request body (MAX_BODY_BYTES). UPDATEs merge members
 * into the stored trip, so each body being within the limit does not bound the booking; this does. Nesting needs
 * no bound of its own here: merges happen at the top level, so the stored trip nests no deeper than a body did.
 */
export interface BookingLimits {
  maxBytes: number;
}

/**
 * Members one JSON object may have, in a request body and in what a booking stores of it: objects of tens of
 * thousands of members make every step after parsing (copy, compare, store, show) slow enough to stall the service.
 */
export const MAX_OBJECT_MEMBERS = 1000;

/** MAX_BODY_BYTES's default. */
export const DEFAULT_BOOKING_LIMITS: BookingLimits = { maxBytes: 1_048_576 };

const NON_ASCII = /[^\x00-\x7f]/g;

/**
 * UTF-8 bytes of a string, without encoding it: a native scan finds the characters past ASCII (a trip's JSON has few,
 * a history's arrows), and only those are looked at.
 */
export function utf8Length(s: string): number {
  let n = s.length;
  NON_ASCII.lastIndex = 0;
  for (let m = NON_ASCII.exec(s); m !== null; m = NON_ASCII.exec(s)) {
    const c = s.charCodeAt(m.index);
    n += c >= 0x800 && (c < 0xd800 || c > 0xdfff) ? 2 : 1;
  }
  return n;
}

/** The bytes a booking keeps of what its parties sent (trip, notes, extra members, the provider's details). */
export function storedSize(b: Booking): number {
  return utf8Length(
    JSON.stringify([b.trip, b.notes, b.affiliateExtra ?? null, b.providerNote ?? null, b.vehicle ?? null, b.chauffeur ?? null, b.providerUpdate ?? null]),
  );
}

/**
 * A party's change checked against the booking's bounds: refused when it would grow the booking past `limits`
 * (413 BOOKING_TOO_LARGE, naming MAX_BODY_BYTES) or give its trip or affiliateReservation more members than one
 * object may have (400 BOOKING_TOO_MANY_MEMBERS); a change that keeps or shrinks an oversized booking passes.
 */
export function withinBounds<R>(decision: Decision<R>, current: Booking | undefined, limits: BookingLimits): Decision<R> {
  if (!decision.write) return decision;
  const next = decision.write.booking;
  const size = storedSize(next);
  if (size > limits.maxBytes && !(current && storedSize(current) >= size)) throw tooLarge(size, limits);
  // UPDATEs merge members into these two objects: each stays within what one body's object may have.
  for (const [field, extra, before] of [
    ["tripPacket", next.trip.extra, current?.trip.extra],
    ["affiliateReservation", next.affiliateExtra, current?.affiliateExtra],
  ] as const) {
    const members = extra ? Object.keys(extra).length : 0;
    if (members > MAX_OBJECT_MEMBERS && members > (before ? Object.keys(before).length : 0))
      throw new TooManyMembersError(
        `The booking's ${field} would hold ${members} members no schema names, more than one object may have (${MAX_OBJECT_MEMBERS}): replace members ` +
          `instead of adding new ones`,
        { limit: "MAX_OBJECT_MEMBERS", field, maxMembers: MAX_OBJECT_MEMBERS, members },
      );
  }
  return decision;
}

function tooLarge(size: number, limits: BookingLimits): TooLargeError {
  return new TooLargeError(
    `The booking would hold ${size} bytes, more than one request may carry (MAX_BODY_BYTES = ${limits.maxBytes} bytes): send fewer or smaller members, ` +
      `or replace members instead of adding new ones`,
    "BOOKING_TOO_LARGE",
    { limit: "MAX_BODY_BYTES", maxBytes: limits.maxBytes, size },
  );
}

/**
 * The write with the booking's changeLogs and transactionErrors capped, so that nothing built from it (webhooks,
 * outbox rows, partner messages) carries more than the booking keeps.
 */
export function historyCapped<R>(decision: Decision<R>): Decision<R> {
  const write = decision.write;
  if (!write) return decision;
  const b = write.booking;
  const changeLogs = capChangeLogs(b.changeLogs);
  const transactionErrors = capTransactionErrors(b.transactionErrors);
  if (changeLogs === b.changeLogs && transactionErrors === b.transactionErrors) return decision;
  return { ...decision, write: { ...write, booking: { ...b, changeLogs, transactionErrors } } };
}
