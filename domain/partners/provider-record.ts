import type { ChangeLog } from "../trips/booking";
import { isReleaseLine } from "../trips/release";

/**
 * A provider's record (docs/terms.md#provider-record): over the last 90 days, how many bookings it was sent, how many it accepted
 * and how fast, how many it rejected or cancelled, how often its chauffeur was on location by the pickup time — read
 * from each booking's status history (its changeLogs status lines). Figures are null under 10 bookings.
 */
export interface ProviderRecord {
  bookings: number;
  acceptedPct: number | null;
  medianAcceptSeconds: number | null;
  providerCancelPct: number | null;
  onTimePct: number | null;
}

export const RECORD_WINDOW_SECONDS = 90 * 24 * 3600;
export const RECORD_MIN_BOOKINGS = 10;

/** One booking sent to a provider, as the record reads it (quotes are not bookings and are left out by the query). */
export interface RecordBooking {
  providerId: string;
  status: string;
  submitDate: number;
  pickupDate: number;
  /** The booking's changeLogs, as stored (JSON text). */
  changeLogs: string;
}

/** Where the record's bookings are read: every booking sent to these providers since `since`, in one read. */
export interface ProviderHistory {
  recentBookings(netids: readonly string[], since: number): Promise<RecordBooking[]>;
}

/** Statuses only a provider's acceptance leads to: CONFIRMED and every later one (NO_SHOW included). */
const ACCEPTED = new Set(["CONFIRMED", "ACKNOWLEDGED", "ASSIGNED", "EN_ROUTE", "ON_LOCATION", "PASSENGER_ON_BOARD", "NO_SHOW", "STOP", "COMPLETE", "CLOSE"]);
const MOVE = /status ([A-Z_]+) → ([A-Z_]+)(?: \(skipped ([A-Z_, ]+)\))?/;

/**
 * What one booking's history says: when the provider accepted, whether it ended the booking, when the chauffeur was on
 * location; `released`: the provider released it unaccepted (docs/availability.md#releasing-a-requesters-pending-requests),
 * and the record leaves it out.
 */
export function bookingFacts(b: RecordBooking): { accepted: boolean; acceptedAt?: number; providerEnded: boolean; onLocationAt?: number; released?: true } {
  let logs: ChangeLog[] = [];
  try {
    logs = JSON.parse(b.changeLogs) as ChangeLog[];
  } catch {
    logs = [];
  }
  let acceptedAt: number | undefined;
  let onLocationAt: number | undefined;
  let providerEnded = false;
  for (const line of Array.isArray(logs) ? logs : []) {
    if (typeof line?.changeDesc === "string" && isReleaseLine(line.changeDesc)) return { accepted: false, providerEnded: false, released: true };
    const m = typeof line?.changeDesc === "string" ? MOVE.exec(line.changeDesc) : null;
    if (!m) continue;
    const to = m[2];
    const at = Math.floor(Date.parse(line.timestamp) / 1000);
    const byProvider = typeof line.changeSource === "string" && line.changeSource.startsWith("provider");
    if (byProvider && acceptedAt === undefined && ACCEPTED.has(to)) acceptedAt = at;
    if (byProvider && (to === "REJECT" || to === "CANCEL")) providerEnded = true;
    const passed = to === "ON_LOCATION" || (m[3] ?? "").split(", ").includes("ON_LOCATION");
    if (passed && onLocationAt === undefined && Number.isFinite(at)) onLocationAt = at;
  }
  // A history cut short (the oldest lines dropped) still tells acceptance by the status the booking reached.
  const accepted = acceptedAt !== undefined || ACCEPTED.has(b.status);
  return {
    accepted,
    ...(acceptedAt !== undefined && Number.isFinite(acceptedAt) ? { acceptedAt } : {}),
    providerEnded,
    ...(onLocationAt !== undefined ? { onLocationAt } : {}),
  };
}

const pct = (n: number, of: number): number | null => (of === 0 ? null : Math.round((1000 * n) / of) / 10);

/** The record of one provider from its bookings of the window (those it released left out). */
export function providerRecordOf(window: readonly RecordBooking[]): ProviderRecord {
  const bookings = window.filter((b) => !b.changeLogs.includes("(RELEASED)") || !bookingFacts(b).released);
  const n = bookings.length;
  if (n < RECORD_MIN_BOOKINGS) return { bookings: n, acceptedPct: null, medianAcceptSeconds: null, providerCancelPct: null, onTimePct: null };
  let accepted = 0;
  let ended = 0;
  let onLocation = 0;
  let onTime = 0;
  const waits: number[] = [];
  for (const b of bookings) {
    const f = bookingFacts(b);
    if (f.accepted) accepted++;
    if (f.acceptedAt !== undefined) waits.push(Math.max(0, f.acceptedAt - b.submitDate));
    if (f.providerEnded) ended++;
    if (f.onLocationAt !== undefined) {
      onLocation++;
      if (f.onLocationAt <= b.pickupDate) onTime++;
    }
  }
  return {
    bookings: n,
    acceptedPct: pct(accepted, n),
    medianAcceptSeconds: median(waits),
    providerCancelPct: pct(ended, n),
    onTimePct: pct(onTime, onLocation),
  };
}

/** The median of whole seconds (the lower middle's and upper middle's mean, rounded); null without values. */
function median(values: number[]): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : Math.round((sorted[mid - 1] + sorted[mid]) / 2);
}

/**
 * Orders options by their provider's record (`sort: "reliability"`): acceptedPct, then onTimePct, highest first (a
 * provider without figures after those with them), then the price they already rank by (a stable sort).
 */
export function byReliability<O extends { provider: { record?: ProviderRecord } }>(options: readonly O[]): O[] {
  const key = (v: number | null | undefined) => (v === null || v === undefined ? -1 : v);
  const accepted = (o: O) => key(o.provider.record?.acceptedPct);
  const onTime = (o: O) => key(o.provider.record?.onTimePct);
  return [...options].sort((a, b) => accepted(b) - accepted(a) || onTime(b) - onTime(a));
}
