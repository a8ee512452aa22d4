import type { Booking, BookingEvent } from "../trips/booking";
import type { TripActor } from "../trips/lifecycle";
import { positionView, visiblePosition, type ChauffeurPosition, type PositionLookup } from "../tracking/position";
import { bookingEventHead, eventBooking, providerBodyDiffers, withdrawnBooking, withdrawnEventHead, type EventReader } from "../trips/booking-event";
import { bookingView } from "../trips/booking-view";
import { utf8Bytes } from "./store-bounds";

/**
 * Live events: what a company's event streams carry — its bookings' changes (the webhook's event types and
 * bodies, for either party) and its live bookings' chauffeur positions — kept in a durable log per company,
 * in commit order, so a stream resumes after its last event id for at least a day.
 */

/** The event type of a chauffeur position. */
export const POSITION_EVENT = "chauffeur.position";
/** A stream resumes from an event id this long after the event (rows are kept a little longer). */
export const RESUME_WINDOW_SECONDS = 24 * 3600;
/** Open event streams per company. */
export const MAX_STREAMS_PER_COMPANY = 10;

/** A row of the log, as a booking change or a position writes it. */
export interface NewLiveEvent {
  /** The company it is for, lower-case (netids match in any case). */
  netid: string;
  transactionId: string;
  kind: "booking" | "position";
  role: TripActor;
  type: string;
  /** The event's JSON body. */
  body: string;
  /**
   * The body's key: rows of one event for several parties carry the same `bodyId` and `body`, and the log keeps
   * the body once (docs/security.md#per-company-store-bounds).
   */
  bodyId: string;
  /** The company (lower-case netid) whose change made the event: its stored bytes count towards that company's bound. */
  payer: string;
  /**
   * What the body counts towards its payer's bound (docs/security.md#per-company-store-bounds): its size in bytes
   * (UTF-8), and on the first body of a booking change also the bytes of the booking version the change replaced.
   */
  bytes: number;
  /** Unix seconds. */
  createdAt: number;
}

/** The bodies of `rows`, each once (by `bodyId`), as the log stores them. */
export function distinctBodies(rows: readonly NewLiveEvent[]): NewLiveEvent[] {
  const seen = new Set<string>();
  return rows.filter((r) => !seen.has(r.bodyId) && seen.add(r.bodyId));
}

/** An event of the log as a stream sends it: `id` is its place in the log, the id a stream resumes from. */
export interface LiveEvent {
  id: number;
  netid: string;
  type: string;
  body: string;
}

/**
 * The log of live events. Rows of booking changes are written by the booking repository in the change's
 * transaction (see ChangeAnnouncer.live); positions are appended here. Reads leave out a position a requester
 * may no longer see (its trip ended), whenever the row was written.
 */
export interface LiveEventLog {
  /** Adds rows outside a booking change (positions); written shortly, in batches. */
  append(rows: NewLiveEvent[]): void;
  /** The company's (lower-case netid) events after `afterId`, oldest first, at most `limit`. */
  after(netid: string, afterId: number, limit: number): Promise<LiveEvent[]>;
  /**
   * The events after `afterId` of any of `netids`, oldest first (at most `limit`), and the id up to which the log
   * was read: the last event returned when the limit cut the answer, else the newest id of the whole log.
   */
  newer(netids: readonly string[], afterId: number, limit: number): Promise<{ events: LiveEvent[]; readTo: number }>;
  /** The newest event id of the whole log (0 when empty). */
  head(): Promise<number>;
  /** The company's kept events of `type` (lower-case netid), newest first, at most `limit`: a list of what happened lately. */
  recent(netid: string, type: string, limit: number): Promise<LiveEvent[]>;
  /** Whether the company's event `id` is still kept (a stream resumes after it). */
  kept(netid: string, id: number): Promise<boolean>;
}

/** The parties of a booking (lower-case netids), each once (a company booking itself sees it as its provider). */
function parties(b: Pick<Booking, "requesterId" | "providerId">): Array<{ netid: string; role: TripActor }> {
  const requester = b.requesterId.toLowerCase();
  const provider = b.providerId.toLowerCase();
  if (requester === provider) return [{ netid: provider, role: "provider" }];
  return [
    { netid: requester, role: "requester" },
    { netid: provider, role: "provider" },
  ];
}

/**
 * The live events of one booking change: for each party, the change as its webhook would carry it, with the
 * chauffeur's position as that party may see it. One event: the parties share one body (one `eventId`) unless
 * what they may see differs (a requester sees no position once the trip ended; a provider sees only its own offer,
 * docs/terms.md#who-sees-what). A provider whose offer ended gets `booking.withdrawn` besides. The change's actor pays
 * for it, and for the `replacedBytes` of the stored booking the change replaced (counted with the first body).
 * A position announcement alone (LOCATION_CHANGED) adds none: positions have their own events.
 */
export function bookingLiveEvents(
  deps: { positions: PositionLookup; newEventId: () => string },
  events: BookingEvent[],
  booking: Booking,
  replacedBytes = 0,
): NewLiveEvent[] {
  const main = events.filter((e) => e.type !== "LOCATION_CHANGED");
  if (main.length === 0) return [];
  const last = deps.positions.lastSync(booking.transactionId);
  const payer = (main[0].actor === "requester" ? booking.requesterId : booking.providerId).toLowerCase();
  const apart = providerBodyDiffers(main, booking);
  const bodies = new Map<string, { bodyId: string; body: string; type: string; bytes: number }>();
  const json = viewJson();
  // The one position a party may see is the booking's last one, or none.
  const made = (reader: EventReader, shown: ChauffeurPosition | undefined) => {
    const key = `${apart ? reader : "any"}:${shown ? "position" : "none"}`;
    let body = bodies.get(key);
    if (!body) {
      const bodyId = deps.newEventId();
      const head = bookingEventHead(bodyId, main, reader, booking);
      const text = json(head, eventBooking(booking, reader), shown ? positionView(shown) : undefined);
      const charged = utf8Bytes(text) + (bodies.size === 0 ? replacedBytes : 0);
      bodies.set(key, (body = { bodyId, body: text, type: head.type, bytes: charged }));
    }
    return body;
  };
  const rows: NewLiveEvent[] = parties(booking).map(({ netid, role }) => {
    const reader: EventReader = netid === booking.requesterId.toLowerCase() ? "requester" : "provider";
    const { type, body, bodyId, bytes } = made(reader, visiblePosition(booking.status, role, last));
    return { netid, transactionId: booking.transactionId, kind: "booking", role, type, body, bodyId, payer, bytes, createdAt: main[0].at };
  });
  for (const e of main) {
    if (e.type !== "OFFER_WITHDRAWN" || !e.formerProvider) continue;
    const bodyId = deps.newEventId();
    const head = withdrawnEventHead(bodyId, e);
    const body = json(head, withdrawnBooking(e, booking), undefined);
    const netid = e.formerProvider.netid.toLowerCase();
    const bytes = utf8Bytes(body);
    const { transactionId } = booking;
    rows.push({ netid, transactionId, kind: "booking", role: "provider", type: head.type, body, bodyId, payer, bytes, createdAt: e.at });
  }
  return rows;
}

/**
 * An event body's JSON text, `head`'s members then `data`: the view of `shown` (with the position a party may see).
 * A view without a position is serialised once per booking object: a lapse shows the lapsed provider the same booking
 * in booking.withdrawn as in the change's own event, and the watch ends thousands of offers in one pass.
 */
function viewJson() {
  const views = new Map<Booking, string>();
  return (head: object, shown: Booking, location: ReturnType<typeof positionView> | undefined): string => {
    let data = location ? undefined : views.get(shown);
    if (data === undefined) {
      data = JSON.stringify(bookingView(shown, location));
      if (!location) views.set(shown, data);
    }
    // The head is a non-empty object: its JSON ends with "}", and `data` goes last as JSON.stringify would put it.
    return `${JSON.stringify(head).slice(0, -1)},"data":${data}}`;
  };
}

/** The live events of a chauffeur's position, one per party (the log leaves it out for a requester whose trip ended). */
export function positionLiveEvents(
  newEventId: () => string,
  booking: Pick<Booking, "requesterId" | "providerId" | "transactionId">,
  p: ChauffeurPosition,
): NewLiveEvent[] {
  const createdAt = Math.floor(p.receivedAt / 1000);
  const { eta, ...location } = positionView(p);
  const data = {
    transactionId: booking.transactionId,
    location,
    ...(p.chfId ? { chfId: p.chfId } : {}),
    ...(p.chfName ? { chfName: p.chfName } : {}),
    // The ETA to the pickup while the booking is ASSIGNED or EN_ROUTE (docs/flights.md#eta).
    ...(eta ? { eta } : {}),
  };
  const bodyId = newEventId();
  const body = JSON.stringify({ eventId: bodyId, type: POSITION_EVENT, createdAt, data });
  const payer = booking.providerId.toLowerCase();
  return parties(booking).map(({ netid, role }) => ({
    netid,
    transactionId: booking.transactionId,
    kind: "position",
    role,
    type: POSITION_EVENT,
    body,
    bodyId,
    payer,
    bytes: utf8Bytes(body),
    createdAt,
  }));
}

/** An event id as a stream client sends it back (Last-Event-ID): a positive whole number, else not one of ours. */
export function parseEventId(raw: string | null | undefined): number | undefined {
  const text = raw?.trim();
  if (!text || !/^\d{1,15}$/.test(text)) return undefined;
  const id = Number(text);
  return id > 0 ? id : undefined;
}

/** Where a new stream starts: after a kept event it resumes from, or at the head with a reset (why, for the client). */
export type StreamStart = { from: number; reset?: undefined } | { from: number; reset: "UNKNOWN_EVENT_ID" | "EVENT_ID_EXPIRED" };

/**
 * Where a stream opened with `lastEventId` starts: right after that event when the log still keeps it for the
 * company; else at the log's head, with a reset — the client reloads what it shows and goes on from there.
 */
export async function streamStart(log: Pick<LiveEventLog, "head" | "kept">, netid: string, lastEventId: string | null | undefined): Promise<StreamStart> {
  const head = await log.head();
  if (lastEventId === null || lastEventId === undefined || lastEventId.trim() === "") return { from: head };
  const id = parseEventId(lastEventId);
  if (id === undefined || id > head) return { from: head, reset: "UNKNOWN_EVENT_ID" };
  if (!(await log.kept(netid, id))) return { from: head, reset: "EVENT_ID_EXPIRED" };
  return { from: id };
}

/**
 * The event streams open on every instance sharing a database, so the per-company limit holds across them. A
 * stream's claim lasts `ttlSeconds` unless renewed (a dead instance's streams expire).
 */
export interface StreamRegistry {
  /**
   * Records a stream of `netid`; when the company already has `limit` open, its oldest ones end to make room (their
   * ids are returned: the instance holding each ends it, see `ended`). Stream ids sort in the order streams open.
   */
  claim(netid: string, streamId: string, limit: number, nowSeconds: number, ttlSeconds: number): Promise<string[]>;
  /** Which of `streamIds` no longer hold a claim (another stream took its place): their streams end. */
  ended(streamIds: readonly string[], nowSeconds: number): Promise<string[]>;
  renew(streamIds: readonly string[], nowSeconds: number, ttlSeconds: number): Promise<void>;
  /** Ends a stream's claim (it is remembered as a recent stream until pruned). */
  release(streamId: string, nowSeconds: number): Promise<void>;
  /** The companies (lower-case netids) that had a stream open on any instance since `sinceSeconds`. */
  followers(sinceSeconds: number): Promise<string[]>;
}

/**
 * Why the service ended a stream (the `reason` of its last event, `event: revoked`): the credential it opened with
 * was released, expired, or its user removed (TOKEN_REVOKED); or the company opened a stream past its limit and
 * this one, its oldest, made room (STREAM_LIMIT).
 */
export type StreamEndReason = "TOKEN_REVOKED" | "STREAM_LIMIT";

/** How a stream is opened, beyond its company and resume point. */
export interface StreamOptions {
  /** Called if it is cut for a reader that fell behind. */
  onCut?: () => void;
  /** Asked again every few seconds while the stream is open: why its credential no longer holds, undefined while it does. */
  recheck?: () => Promise<StreamEndReason | undefined>;
}

/** This instance's event streams, as the HTTP route opens them. */
export interface EventStreams {
  /**
   * A stream of the company's events in the text/event-stream format, starting as `streamStart` says. At the
   * per-company limit the company's oldest stream ends (STREAM_LIMIT) to make room for this one.
   */
  open(netid: string, lastEventId: string | null | undefined, options?: StreamOptions): Promise<ReadableStream<Uint8Array>>;
}
