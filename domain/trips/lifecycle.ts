import { ConflictError } from "../errors";

/** Every status a booking can be in. */
export const TRIP_STATUSES = [
  "QUOTE",
  "BOOKING_REQUEST",
  "PENDING",
  "CONFIRMED",
  "REJECT",
  "FAILED",
  "ACKNOWLEDGED",
  "ASSIGNED",
  "EN_ROUTE",
  "ON_LOCATION",
  "PASSENGER_ON_BOARD",
  "NO_SHOW",
  "STOP",
  "COMPLETE",
  "CLOSE",
  "CANCEL",
] as const;

export type TripStatus = (typeof TRIP_STATUSES)[number];

/** Who moves a booking: the company that sent it, or the operator that runs it. */
export type TripActor = "requester" | "provider";

/** Older spellings still sent by some platforms, read as the current names. */
export const LEGACY_STATUSES: Readonly<Record<string, TripStatus>> = {
  ENROUTE: "EN_ROUTE",
  AT_LOCATION: "ON_LOCATION",
  ACCEPTED: "CONFIRMED",
};

export const TERMINAL_STATUSES: ReadonlySet<TripStatus> = new Set(["CLOSE", "CANCEL", "REJECT", "NO_SHOW"]);

// The lifecycle without CANCEL; CANCEL is added below for every state before PASSENGER_ON_BOARD.
const FORWARD: Readonly<Record<TripStatus, readonly TripStatus[]>> = {
  QUOTE: ["BOOKING_REQUEST"],
  BOOKING_REQUEST: ["PENDING", "CONFIRMED", "REJECT", "FAILED"],
  PENDING: ["CONFIRMED", "REJECT"],
  CONFIRMED: ["ACKNOWLEDGED", "ASSIGNED"],
  ACKNOWLEDGED: ["ASSIGNED"],
  ASSIGNED: ["ACKNOWLEDGED", "EN_ROUTE"],
  EN_ROUTE: ["ON_LOCATION"],
  ON_LOCATION: ["PASSENGER_ON_BOARD", "NO_SHOW"],
  PASSENGER_ON_BOARD: ["STOP", "COMPLETE"],
  STOP: ["PASSENGER_ON_BOARD", "STOP", "COMPLETE"],
  COMPLETE: ["CLOSE"],
  FAILED: ["BOOKING_REQUEST"],
  REJECT: [],
  NO_SHOW: [],
  CLOSE: [],
  CANCEL: [],
};

/** States from which a trip can still be cancelled: every non-terminal state before the passenger is on board. */
export const CANCELLABLE_STATUSES: ReadonlySet<TripStatus> = new Set([
  "QUOTE",
  "BOOKING_REQUEST",
  "PENDING",
  "CONFIRMED",
  "ACKNOWLEDGED",
  "ASSIGNED",
  "EN_ROUTE",
  "ON_LOCATION",
  "FAILED",
]);

/** The one transition table: status → the statuses it may move to next. */
export const TRANSITIONS: Readonly<Record<TripStatus, readonly TripStatus[]>> = Object.fromEntries(
  TRIP_STATUSES.map((s) => [s, CANCELLABLE_STATUSES.has(s) ? [...FORWARD[s], "CANCEL"] : [...FORWARD[s]]]),
) as unknown as Record<TripStatus, readonly TripStatus[]>;

/** The human label shown as `resStatus`. */
export const STATUS_LABELS: Readonly<Record<TripStatus, string>> = {
  QUOTE: "Quoted",
  BOOKING_REQUEST: "Pending",
  PENDING: "Pending",
  CONFIRMED: "Confirmed",
  REJECT: "Rejected",
  FAILED: "Failed",
  ACKNOWLEDGED: "Acknowledged",
  ASSIGNED: "Assigned",
  EN_ROUTE: "En Route",
  ON_LOCATION: "On Location",
  PASSENGER_ON_BOARD: "Passenger On Board",
  NO_SHOW: "No Show",
  STOP: "Stop",
  COMPLETE: "Complete",
  CLOSE: "Closed",
  CANCEL: "Cancelled",
};

// Entering BOOKING_REQUEST is the requester's act (converting its quote) or the exchange's (retrying a failed delivery).
const NOT_BY_PROVIDER: ReadonlySet<TripStatus> = new Set(["BOOKING_REQUEST"]);

/**
 * Reads a status as sent by a client: trimmed, case-insensitive, legacy spellings mapped.
 * Returns undefined for anything that is not a status.
 */
export function parseTripStatus(raw: string): TripStatus | undefined {
  const s = raw.trim().toUpperCase();
  if ((TRIP_STATUSES as readonly string[]).includes(s)) return s as TripStatus;
  return LEGACY_STATUSES[s];
}

/** Whether the table allows `from` → `to` directly (without skipping states). */
export function canTransition(from: TripStatus, to: TripStatus): boolean {
  return TRANSITIONS[from].includes(to);
}

/**
 * The main path a dispatch system reports along. A forward move along it may skip states,
 * as GNet providers send them (CONFIRMED → ON_LOCATION without an EN_ROUTE event).
 */
export const MAIN_PATH: readonly TripStatus[] = [
  "BOOKING_REQUEST",
  "PENDING",
  "CONFIRMED",
  "ASSIGNED",
  "EN_ROUTE",
  "ON_LOCATION",
  "PASSENGER_ON_BOARD",
  "COMPLETE",
  "CLOSE",
];

// The side states sit at a main-path position: ACKNOWLEDGED is a confirmed booking, STOP a passenger on board.
const PATH_POSITION: Partial<Record<TripStatus, number>> = {
  ...Object.fromEntries(MAIN_PATH.map((s, i) => [s, i])),
  ACKNOWLEDGED: MAIN_PATH.indexOf("CONFIRMED"),
  STOP: MAIN_PATH.indexOf("PASSENGER_ON_BOARD"),
};

/** The main-path states a forward move `from` → `to` passes over; undefined when it is not such a skip. */
export function skippedStates(from: TripStatus, to: TripStatus): TripStatus[] | undefined {
  const a = PATH_POSITION[from];
  const z = MAIN_PATH.indexOf(to);
  if (a === undefined || z < 0 || z <= a + 1 || canTransition(from, to)) return undefined;
  return MAIN_PATH.slice(a + 1, z);
}

/** The main-path states reachable from `from` only by skipping (published with the lifecycle). */
export function skipTargets(from: TripStatus): TripStatus[] {
  return MAIN_PATH.filter((to) => skippedStates(from, to) !== undefined);
}

/** The statuses `actor` may move a booking to from `from`: the table's next states, then the forward skips. */
export function allowedNext(from: TripStatus, actor?: TripActor): TripStatus[] {
  const next = [...TRANSITIONS[from], ...skipTargets(from)];
  return actor === "provider" ? next.filter((s) => !NOT_BY_PROVIDER.has(s)) : next;
}

/** The statuses `actor` may move a booking to one step at a time: the table's next states, without the forward skips. */
export function nextSteps(from: TripStatus, actor?: TripActor): TripStatus[] {
  return allowedNext(from, actor).filter((to) => canTransition(from, to));
}

/** Throws 409 INVALID_TRANSITION, listing the allowed next states, unless `actor` may move `from` → `to`. */
export function assertTransition(from: TripStatus, to: TripStatus, actor?: TripActor): void {
  const allowed = allowedNext(from, actor);
  if (allowed.includes(to)) return;
  const options = allowed.length > 0 ? `allowed next: ${allowed.join(", ")}` : `${from} is final`;
  throw new ConflictError(`Cannot change status ${from} → ${to}; ${options}`, "INVALID_TRANSITION", { from, to, allowed });
}

/** The statuses of the trip itself (EN_ROUTE and every later one but CANCEL): they wait for the trip. */
export const TRIP_UNDER_WAY: ReadonlySet<TripStatus> = new Set(["EN_ROUTE", "ON_LOCATION", "PASSENGER_ON_BOARD", "NO_SHOW", "STOP", "COMPLETE", "CLOSE"]);
/** How long before its pickup a trip may be under way at the earliest (s). */
export const UNDER_WAY_LEAD_SECONDS = 12 * 3600;

/**
 * Whether `to` must still wait for the trip (docs/integration.md#trip-statuses-wait-for-the-trip): a status of the trip
 * itself while the pickup is more than 12 h away — a trip run months ahead would close today, and count as on time.
 */
export function tooEarlyFor(to: TripStatus, pickupDate: number, now: number): boolean {
  return TRIP_UNDER_WAY.has(to) && now < pickupDate - UNDER_WAY_LEAD_SECONDS;
}

/** Throws 409 STATUS_TOO_EARLY, naming the instant it is allowed from, when `to` must still wait for the trip. */
export function assertTripTime(to: TripStatus, pickupDate: number, now: number): void {
  if (!tooEarlyFor(to, pickupDate, now)) return;
  const allowedFrom = new Date((pickupDate - UNDER_WAY_LEAD_SECONDS) * 1000).toISOString().replace(".000Z", "Z");
  throw new ConflictError(
    `A trip's status ${to} waits for the trip: it may be sent from 12 h before the pickup, at ${allowedFrom}`,
    "STATUS_TOO_EARLY",
    { status: to, allowedFrom },
  );
}
