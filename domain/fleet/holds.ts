import type { FieldError } from "../errors";
import type { Plan } from "../company/plan";

/** Booking statuses that no longer hold their vehicle (docs/availability.md). */
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

/**
 * How many live unaccepted bookings holding a vehicle one requester may keep (docs/availability.md#hold-limits):
 * with one provider, and with all providers together, by the requester's plan.
 */
export const HOLD_LIMITS: Readonly<Record<Plan, HoldLimits>> = {
  FREE: { perProvider: 10, total: 50 },
  PROFESSIONAL: { perProvider: 50, total: 500 },
  ENTERPRISE: { perProvider: 50, total: 500 },
};

export interface HoldLimits {
  perProvider: number;
  total: number;
}

/** What claiming a vehicle for a booking writes. */
export interface HoldClaim {
  slug: string;
  provider: string;
  /** The booking's requester: its live unaccepted holds are counted against `limits`. */
  requester: string;
  transactionId: string;
  from: number;
  to: number;
  /** Refuse the claim when the requester already keeps this many live unaccepted holds (absent: no limit). */
  limits?: HoldLimits;
}

/**
 * What a claim came to: the vehicle held; taken by another live hold; or refused because the requester keeps its
 * limit of unaccepted holds (`scope` says which; `soonest`: when the first of them lapses, Unix seconds, if known).
 */
export type ClaimOutcome =
  | { kind: "claimed" }
  | { kind: "taken" }
  | { kind: "limit"; scope: "provider" | "all"; limit: number; soonest: number | null };

/** The live holds of vehicles, kept in the database (the authority: a claim is checked and written atomically there). */
export interface VehicleHolds {
  /**
   * Holds `slug` over [from, to) for the booking unless a live hold of another booking or a blackout overlaps it:
   * checked and written in ONE database transaction under a lock on the vehicle, so of two racing claims one wins.
   * A hold of the same booking is replaced. With `limits`, the requester's other live unaccepted holds are counted
   * in the same transaction (under a lock on the requester where several instances share the database) first.
   */
  claim(claim: HoldClaim, now: number): Promise<ClaimOutcome>;
  /** Drops the hold of a booking (its booking was not made after all). */
  release(transactionId: string): Promise<void>;
  /** Every live hold ending after `after`, with its vehicle's provider (what quotes leave out). */
  liveHoldsAfter(after: number, now: number): Promise<Array<{ provider: string; slug: string; from: number; to: number }>>;
  /** The live holds of one vehicle overlapping [from, to), earliest first. */
  scheduleOf(slug: string, from: number, to: number, now: number): Promise<VehicleHold[]>;
  addBlackout(hold: VehicleHold & { provider: string }, now: number): Promise<void>;
  /** The vehicle's blackouts, earliest first. */
  blackoutsOf(slug: string): Promise<VehicleHold[]>;
  /** false: no such blackout of this vehicle. */
  removeBlackout(slug: string, id: string): Promise<boolean>;
}

/**
 * Quote-side view of holds: a copy of every live hold, by provider, refreshed from the database when older than
 * `ttlMs` (one query for all providers, one refresh at a time); claims go to the database, which decides.
 */
export class HoldIndex {
  private byProvider = new Map<string, Array<{ slug: string; from: number; to: number }>>();
  private at = -Infinity;
  private refreshing: Promise<void> | undefined;

  constructor(
    readonly store: VehicleHolds,
    private readonly nowMs: () => number = () => Date.now(),
    private readonly ttlMs = 1000,
    /** The service's current Unix second: which holds are live then (an unaccepted booking's lapses at its acceptBy). */
    private readonly seconds: () => number = () => Math.floor(Date.now() / 1000),
  ) {}

  /** Resolves once the copy is at most `ttlMs` old. */
  async ready(): Promise<void> {
    if (this.nowMs() - this.at <= this.ttlMs) return;
    this.refreshing ??= this.refresh().finally(() => (this.refreshing = undefined));
    await this.refreshing;
  }

  private async refresh(): Promise<void> {
    const now = this.nowMs();
    const seconds = this.seconds();
    const holds = await this.store.liveHoldsAfter(seconds - 86_400, seconds);
    const byProvider = new Map<string, Array<{ slug: string; from: number; to: number }>>();
    for (const h of holds) {
      let list = byProvider.get(h.provider);
      if (!list) byProvider.set(h.provider, (list = []));
      list.push({ slug: h.slug, from: h.from, to: h.to });
    }
    this.byProvider = byProvider;
    this.at = now;
  }

  /** The provider's vehicles held at some moment of [from, to), from the copy as it is (call `ready` first). */
  busyNow(provider: string, from: number, to: number): ReadonlySet<string> {
    const holds = this.byProvider.get(provider);
    if (!holds) return EMPTY;
    const busy = new Set<string>();
    for (const h of holds) if (h.from < to && h.to > from) busy.add(h.slug);
    return busy;
  }

  /** The provider's vehicles held at some moment of [from, to) (empty set: none). */
  async busySlugs(provider: string, from: number, to: number): Promise<ReadonlySet<string>> {
    await this.ready();
    return this.busyNow(provider, from, to);
  }

  /** Forgets the copy (this instance changed the provider's holds): the next quote reads them again. */
  forget(_provider: string): void {
    this.at = -Infinity;
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

/**
 * The instants `from` and `to` of a window at most `maxDays` long, `to` after `from`; each failing one is added to
 * `errors` (an unreadable one with its message in `unreadable`).
 */
function checkWindow(
  w: { from?: unknown; to?: unknown },
  errors: FieldError[],
  maxDays: number,
  unreadable: { from: string; to: string },
): { from: number | undefined; to: number | undefined } {
  const from = instantOf(w.from);
  const to = instantOf(w.to);
  if (from === undefined) errors.push({ field: "from", message: unreadable.from });
  if (to === undefined) errors.push({ field: "to", message: unreadable.to });
  else if (from !== undefined && to <= from) errors.push({ field: "to", message: "must be after from" });
  else if (from !== undefined && to - from > maxDays * 86_400) errors.push({ field: "to", message: `must be at most ${maxDays} days after from` });
  return { from, to };
}

/** A checked blackout request: every failing field named. */
export function checkBlackout(
  body: { from?: unknown; to?: unknown; reason?: unknown },
): { ok: true; from: number; to: number; reason: string | null } | { ok: false; errors: FieldError[] } {
  const errors: FieldError[] = [];
  const { from, to } = checkWindow(body, errors, MAX_BLACKOUT_DAYS, {
    from: "must be an ISO 8601 instant with a zone, e.g. 2030-05-01T08:00:00Z",
    to: "must be an ISO 8601 instant with a zone, e.g. 2030-05-01T18:00:00Z",
  });
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
  const unreadable = "is required: an ISO 8601 instant with a zone";
  const { from, to } = checkWindow(query, errors, MAX_SCHEDULE_DAYS, { from: unreadable, to: unreadable });
  return errors.length > 0 ? { ok: false, errors } : { ok: true, from: from!, to: to! };
}
