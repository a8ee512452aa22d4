import type { ChangeLog, Offer } from "../trips/booking";
import { AWAITING, isMoveLine } from "../trips/offers";
import { isReleaseLine } from "../trips/release";

/**
 * What each offer of one booking tells a provider's record (docs/terms.md#provider-record), pure: a booking the
 * cascade moved was offered to several providers, one after the other; each offer is read from its own changeLogs
 * lines (those between the moves), so a provider is never charged with another's answer.
 */

/** One booking as the record reads it: bookings, not quotes, of the record's providers, current or earlier. */
export interface RecordBooking {
  transactionId: string;
  /** The current provider. */
  providerId: string;
  requesterId: string;
  status: string;
  submitDate: number;
  pickupDate: number;
  /** The booking's changeLogs, as stored (JSON text). */
  changeLogs: string;
  /** The booking's `offers` (JSON text); null when it was offered to its provider alone (the store need not read them). */
  offers: string | null;
  /** When positions tell it (the trip clock's arrivedAt, Unix seconds): the current provider's chauffeur at the pickup. */
  arrivedAt?: number;
}

/** What one offer to one provider came to. */
export interface OfferFacts {
  provider: string;
  requester: string;
  /** When it was offered (Unix seconds). */
  offeredAt: number;
  pickupDate: number;
  /** False when it does not count: the provider sent it to itself, or the requester withdrew it before an answer. */
  counted: boolean;
  /** The provider has not answered yet (and the offer has not lapsed). */
  awaiting: boolean;
  accepted: boolean;
  acceptedAt?: number;
  /** The provider declined it, or cancelled after accepting it (a give-back). */
  providerEnded: boolean;
  /** When its chauffeur was ON_LOCATION (the status, or a skip past it). */
  onLocationAt?: number;
  /** When its chauffeur's positions put it at the pickup. */
  arrivedAt?: number;
}

/** Statuses only a provider's acceptance leads to: CONFIRMED and every later one (NO_SHOW included). */
const ACCEPTED = new Set(["CONFIRMED", "ACKNOWLEDGED", "ASSIGNED", "EN_ROUTE", "ON_LOCATION", "PASSENGER_ON_BOARD", "NO_SHOW", "STOP", "COMPLETE", "CLOSE"]);
const STATUS_LINE = /status ([A-Z_]+) → ([A-Z_]+)(?: \(skipped ([A-Z_, ]+)\))?/;
/** An earlier offer's reason saying its provider had accepted before it gave the booking back. */
const GAVE_BACK = "PROVIDER_GAVE_BACK";
const REJECTED = "PROVIDER_REJECTED";

function parsed<T>(text: string | null): T[] | undefined {
  if (text === null) return undefined;
  try {
    const value = JSON.parse(text) as unknown;
    return Array.isArray(value) ? (value as T[]) : undefined;
  } catch {
    return undefined;
  }
}

const seconds = (iso: unknown): number | undefined => {
  const ms = typeof iso === "string" ? Date.parse(iso) : NaN;
  return Number.isFinite(ms) ? Math.floor(ms / 1000) : undefined;
};

/**
 * Each offer's own changeLogs lines, by the moves between them. A history cut short (its oldest lines dropped) lost
 * the earliest offers' lines first: the lines kept are those of the last offers, as many as the moves kept tell.
 */
function linesByOffer(logs: readonly ChangeLog[], offers: number): ReadonlyArray<readonly ChangeLog[]> {
  if (offers === 1) return [logs];
  const out: ChangeLog[][] = Array.from({ length: offers }, () => []);
  let k = Math.max(0, offers - 1 - logs.filter(isMoveLine).length);
  for (const line of logs) {
    if (isMoveLine(line)) k = Math.min(offers - 1, k + 1);
    else out[k].push(line);
  }
  return out;
}

/**
 * What one offer's lines say: the provider's acceptance and ending, the requester's cancel, the chauffeur on
 * location, the quote's conversion into a booking.
 */
function readLines(lines: readonly ChangeLog[]) {
  let acceptedAt: number | undefined;
  let onLocationAt: number | undefined;
  let providerEnded = false;
  let requesterCancelled = false;
  let convertedAt: number | undefined;
  let released = false;
  for (const line of lines) {
    if (typeof line?.changeDesc === "string" && isReleaseLine(line.changeDesc)) released = true;
    const m = typeof line?.changeDesc === "string" ? STATUS_LINE.exec(line.changeDesc) : null;
    if (!m) continue;
    const to = m[2];
    const at = seconds(line.timestamp);
    if (m[1] === "QUOTE" && to === "BOOKING_REQUEST") convertedAt = at;
    const source = typeof line.changeSource === "string" ? line.changeSource : "";
    const byProvider = source.startsWith("provider");
    if (byProvider && acceptedAt === undefined && ACCEPTED.has(to)) acceptedAt = at ?? Number.NaN;
    if (byProvider && (to === "REJECT" || to === "CANCEL")) providerEnded = true;
    if (source.startsWith("requester") && to === "CANCEL") requesterCancelled = true;
    const passed = to === "ON_LOCATION" || (m[3] ?? "").split(", ").includes("ON_LOCATION");
    if (passed && onLocationAt === undefined && at !== undefined) onLocationAt = at;
  }
  return { acceptedAt, onLocationAt, providerEnded, requesterCancelled, convertedAt, released };
}

/** The offers one booking made, each with what it came to (read without its offers: one offer, to its provider). */
export function offersOf(b: RecordBooking): OfferFacts[] {
  const logs = parsed<ChangeLog>(b.changeLogs) ?? [];
  const stored = parsed<Offer>(b.offers)?.filter((o) => typeof o?.provider === "string");
  const offers: Array<Pick<Offer, "provider" | "at"> & Partial<Offer>> = stored?.length ? stored : [{ provider: b.providerId, at: "" }];
  const lines = linesByOffer(logs, offers.length);
  const last = offers.length - 1;
  return offers.map((offer, k) => {
    const read = readLines(lines[k]);
    const current = k === last;
    const reason = current ? undefined : offer.reason;
    // A history cut short still tells acceptance by the status reached (the current offer) or the reason (an earlier one).
    const accepted = read.acceptedAt !== undefined || (current ? ACCEPTED.has(b.status) : reason === GAVE_BACK);
    const providerEnded = read.providerEnded || reason === GAVE_BACK || reason === REJECTED;
    const awaiting = current && !accepted && (AWAITING as ReadonlySet<string>).has(b.status);
    const self = b.requesterId.toLowerCase() === offer.provider.toLowerCase();
    const withdrawn = current && read.requesterCancelled && !accepted;
    // A booking's first offer without its own time was made when it was sent, or when its quote was converted.
    const offeredAt = seconds(offer.at) ?? read.convertedAt ?? b.submitDate;
    return {
      provider: offer.provider,
      requester: b.requesterId,
      offeredAt,
      pickupDate: b.pickupDate,
      // A request the provider released unaccepted is not held against it (docs/availability.md#releasing-a-requesters-pending-requests).
      counted: !self && !withdrawn && !read.released,
      awaiting,
      accepted,
      ...(read.acceptedAt !== undefined && Number.isFinite(read.acceptedAt) ? { acceptedAt: read.acceptedAt } : {}),
      providerEnded,
      ...(read.onLocationAt !== undefined ? { onLocationAt: read.onLocationAt } : {}),
      // The arrival is the current offer's when it came after the offer was made (not one of a provider that gave it back).
      ...(current && b.arrivedAt !== undefined && b.arrivedAt >= offeredAt ? { arrivedAt: b.arrivedAt } : {}),
    };
  });
}
