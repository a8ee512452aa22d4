import type { FieldError } from "../errors";

/** Booking statuses that no longer hold their vehicle (CONTRACT §19.5). */
export const RELEASING_STATUSES = ["CANCEL", "REJECT", "FAILED", "NO_SHOW", "CLOSE"] as const;
/** A booking hold whose booking was not written yet (or is still the QUOTE being converted) counts this long (s). */
export const PENDING_HOLD_GRACE_SECONDS = 120;
export const DEFAULT_TURNAROUND_MINUTES = 30;
export const MAX_TURNAROUND_MINUTES = 720;
export const MAX_MINIMUM_NOTICE_MINUTES = 10_080;
/** The longest blackout (days) and the longest schedule window (days) one request may name. */
export const MAX_BLACKOUT_DAYS = 366;
export const MAX_SCHEDULE_DAYS = 62;
export const MAX_REASON_CHARS = 500;

/** A span of time during which a vehicle is not offered: a live booking's hold or a blackout. Unix seconds, [from, to). */
export interface VehicleHold {
  id: string;
  slug: string;
  kind: "BOOKING" | "BLACKOUT";
  /** BOOKING: the booking that holds it. */
  transactionId?: string;
  from: number;
  to: number;
  /** BLACKOUT: why. */
  reason?: string;
}

/** What claiming a vehicle for a booking writes. */
export interface HoldClaim {
  slug: string;
  provider: string;
  transactionId: string;
  from: number;
  to: number;
}

/** The live holds of vehicles, kept in the database (the authority: a claim is checked and written atomically there). */
export interface VehicleHolds {
  /**
   * Holds `slug` over [from, to) for the booking unless a live hold of another booking or a blackout overlaps it:
   * checked and written in ONE database transaction under a lock on the vehicle, so of two racing claims one wins.
   * A hold of the same booking is replaced. false: the vehicle is taken.
   */
  claim(claim: HoldClaim, now: number): Promise<boolean>;
  /** Drops the hold of a booking (its booking was not made after all). */
  release(transactionId: string): Promise<void>;
  /** The live holds of the provider's vehicles ending after `after` (what a quote leaves out). */
  liveHoldsOf(provider: string, after: number, now: number): Promise<Array<{ slug: string; from: number; to: number }>>;
  /** The live holds of one vehicle overlapping [from, to), earliest first. */
  scheduleOf(slug: string, from: number, to: number, now: number): Promise<VehicleHold[]>;
  addBlackout(hold: VehicleHold & { provider: string }, now: number): Promise<void>;
  /** The vehicle's blackouts, earliest first. */
  blackoutsOf(slug: string): Promise<VehicleHold[]>;
  /** false: no such blackout of this vehicle. */
  removeBlackout(slug: string, id: string): Promise<boolean>;
}

/** Quote-side view of holds: a per-provider copy refreshed from the database at most `ttlMs` old; claims go to the database. */
export class HoldIndex {
  private readonly cache = new Map<string, { at: number; holds: Array<{ slug: string; from: number; to: number }> }>();

  constructor(
    readonly store: VehicleHolds,
    private readonly nowMs: () => number = () => Date.now(),
    private readonly ttlMs = 1000,
  ) {}

  /** The provider's vehicles held at some moment of [from, to) (empty set: none). */
  async busySlugs(provider: string, from: number, to: number): Promise<ReadonlySet<string>> {
    const now = this.nowMs();
    let entry = this.cache.get(provider);
    if (!entry || now - entry.at > this.ttlMs) {
      const seconds = Math.floor(now / 1000);
      entry = { at: now, holds: await this.store.liveHoldsOf(provider, seconds - 86_400, seconds) };
      this.cache.set(provider, entry);
      if (this.cache.size > 10_000) this.cache.delete(this.cache.keys().next().value!);
    }
    if (entry.holds.length === 0) return EMPTY;
    const busy = new Set<string>();
    for (const h of entry.holds) if (h.from < to && h.to > from) busy.add(h.slug);
    return busy;
  }

  /** Forgets the provider's copy (this instance changed its holds). */
  forget(provider: string): void {
    this.cache.delete(provider);
  }
}

const EMPTY: ReadonlySet<string> = new Set();

/** The span a booked trip holds its vehicle: pickup to estimated end (quarter hours) plus the turnaround. */
export function holdSpan(pickup: number, quarterHours: number, turnaroundMinutes: number): { from: number; to: number } {
  return { from: pickup, to: pickup + quarterHours * 900 + turnaroundMinutes * 60 };
}

/** A UTC ISO 8601 instant with an explicit zone, as Unix seconds; undefined when it is not one. */
export function instantOf(value: unknown): number | undefined {
  if (typeof value !== "string" || value.length > 40) return undefined;
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/.test(value)) return undefined;
  const ms = Date.parse(value);
  return Number.isFinite(ms) ? Math.floor(ms / 1000) : undefined;
}

/** A checked blackout request: every failing field named. */
export function checkBlackout(
  body: { from?: unknown; to?: unknown; reason?: unknown },
): { ok: true; from: number; to: number; reason: string | null } | { ok: false; errors: FieldError[] } {
  const errors: FieldError[] = [];
  const from = instantOf(body.from);
  const to = instantOf(body.to);
  if (from === undefined) errors.push({ field: "from", message: "must be an ISO 8601 instant with a zone, e.g. 2030-05-01T08:00:00Z" });
  if (to === undefined) errors.push({ field: "to", message: "must be an ISO 8601 instant with a zone, e.g. 2030-05-01T18:00:00Z" });
  else if (from !== undefined && to <= from) errors.push({ field: "to", message: "must be after from" });
  else if (from !== undefined && to - from > MAX_BLACKOUT_DAYS * 86_400)
    errors.push({ field: "to", message: `must be at most ${MAX_BLACKOUT_DAYS} days after from` });
  let reason: string | null = null;
  if (body.reason !== undefined && body.reason !== null) {
    if (typeof body.reason !== "string" || body.reason.trim().length > MAX_REASON_CHARS)
      errors.push({ field: "reason", message: `must be a text of at most ${MAX_REASON_CHARS} characters` });
    else reason = body.reason.trim() || null;
  }
  return errors.length > 0 ? { ok: false, errors } : { ok: true, from: from!, to: to!, reason };
}

/** A checked schedule window (`from`, `to` query parameters): every failing one named. */
export function checkScheduleWindow(query: { from?: unknown; to?: unknown }): { ok: true; from: number; to: number } | { ok: false; errors: FieldError[] } {
  const errors: FieldError[] = [];
  const from = instantOf(query.from);
  const to = instantOf(query.to);
  if (from === undefined) errors.push({ field: "from", message: "is required: an ISO 8601 instant with a zone" });
  if (to === undefined) errors.push({ field: "to", message: "is required: an ISO 8601 instant with a zone" });
  else if (from !== undefined && to <= from) errors.push({ field: "to", message: "must be after from" });
  else if (from !== undefined && to - from > MAX_SCHEDULE_DAYS * 86_400)
    errors.push({ field: "to", message: `must be at most ${MAX_SCHEDULE_DAYS} days after from` });
  return errors.length > 0 ? { ok: false, errors } : { ok: true, from: from!, to: to! };
}
