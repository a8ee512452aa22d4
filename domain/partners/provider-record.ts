import type { OfferFacts, RecordBooking } from "./offer-facts";

export type { OfferFacts, RecordBooking } from "./offer-facts";

/**
 * A provider's record (docs/terms.md#provider-record): the offers made to it on the bookings of the last 90 days —
 * a booking the cascade moved on counts for each provider it was offered to — how many it accepted and how fast,
 * how many it declined or gave back, how often its chauffeur was there by the pickup time. An offer a provider sent
 * itself, or that its requester withdrew before an answer, does not count. Figures are null under 10 answered offers.
 */
export interface ProviderRecord {
  /** Offers counted (those still awaiting an answer included). */
  offers: number;
  /** Distinct requester companies the counted offers came from. */
  requesters: number;
  /** Counted offers still awaiting the provider's answer: not yet in the figures below. */
  awaiting: number;
  acceptedPct: number | null;
  medianAcceptSeconds: number | null;
  providerCancelPct: number | null;
  onTimePct: number | null;
  /** The earlier name of `offers` (a booking is offered to a provider once), kept for existing readers. */
  bookings: number;
}

export const RECORD_WINDOW_SECONDS = 90 * 24 * 3600;
/** Answered offers under which the figures are null. */
export const RECORD_MIN_ANSWERED = 10;

/**
 * Where the record's bookings are read: every booking (not a quote) sent since `since` whose current provider is one
 * of these, or that was offered to one of them before the cascade moved it on, in one read.
 */
export interface ProviderHistory {
  recentBookings(netids: readonly string[], since: number): Promise<RecordBooking[]>;
}

/**
 * Whether the chauffeur was there in time: at or before the pickup by its arrival where positions tell it, else by
 * its ON_LOCATION; undefined when neither is known.
 */
export function onTime(pickupDate: number, onLocationAt?: number, arrivedAt?: number): boolean | undefined {
  const at = arrivedAt ?? onLocationAt;
  return at === undefined ? undefined : at <= pickupDate;
}

const pct = (n: number, of: number): number | null => (of === 0 ? null : Math.round((1000 * n) / of) / 10);

/** The record of one provider from the offers made to it in the window (each offer's facts: offersOf). */
export function providerRecordOf(offers: readonly OfferFacts[]): ProviderRecord {
  const counted = offers.filter((o) => o.counted);
  const answered = counted.filter((o) => !o.awaiting);
  const head = {
    offers: counted.length,
    requesters: new Set(counted.map((o) => o.requester.toLowerCase())).size,
    awaiting: counted.length - answered.length,
  };
  const tail = { bookings: counted.length };
  if (answered.length < RECORD_MIN_ANSWERED) {
    return { ...head, acceptedPct: null, medianAcceptSeconds: null, providerCancelPct: null, onTimePct: null, ...tail };
  }
  let accepted = 0;
  let ended = 0;
  let arrived = 0;
  let inTime = 0;
  const waits: number[] = [];
  for (const o of answered) {
    if (o.accepted) accepted++;
    if (o.acceptedAt !== undefined) waits.push(Math.max(0, o.acceptedAt - o.offeredAt));
    if (o.providerEnded) ended++;
    const there = o.accepted ? onTime(o.pickupDate, o.onLocationAt, o.arrivedAt) : undefined;
    if (there !== undefined) {
      arrived++;
      if (there) inTime++;
    }
  }
  return {
    ...head,
    acceptedPct: pct(accepted, answered.length),
    medianAcceptSeconds: median(waits),
    providerCancelPct: pct(ended, answered.length),
    onTimePct: pct(inTime, arrived),
    ...tail,
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
  const punctual = (o: O) => key(o.provider.record?.onTimePct);
  return [...options].sort((a, b) => accepted(b) - accepted(a) || punctual(b) - punctual(a));
}
