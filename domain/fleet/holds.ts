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

/** The live blackouts one vehicle and one company may keep (docs/availability.md#how-many-blackouts). */
export const BLACKOUT_LIMITS = { perVehicle: 200, perCompany: 10_000 } as const;

/** Why a blackout was not added: the vehicle or the company keeps its limit of live blackouts already. */
export interface BlackoutRefusal {
  limit: "vehicle" | "company";
  /** How many live blackouts it keeps. */
  live: number;
  /** When the earliest of them ends (Unix seconds): a place frees then. */
  firstEnds: number;
}

/** A vehicle's or a company's live blackouts (ending after now): how many, and when the earliest ends (Unix seconds). */
export interface LiveBlackoutCount {
  live: number;
  firstEnds: number;
}

/** Why a blackout may not be added next to these live ones (docs/availability.md#how-many-blackouts); undefined: it may. */
export function blackoutRefusal(
  vehicle: LiveBlackoutCount,
  company: LiveBlackoutCount,
  limits: typeof BLACKOUT_LIMITS,
): BlackoutRefusal | undefined {
  if (vehicle.live >= limits.perVehicle) return { limit: "vehicle", ...vehicle };
  if (company.live >= limits.perCompany) return { limit: "company", ...company };
  return undefined;
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
  /**
   * The live holds of these providers' vehicles ending after `after` (what their quotes leave out), read by provider
   * (an index on the provider): no other provider's holds are read.
   */
  liveHoldsOf(providers: readonly string[], after: number, now: number): Promise<Array<{ provider: string; slug: string; from: number; to: number }>>;
  /** The live holds of one vehicle overlapping [from, to), earliest first. */
  scheduleOf(slug: string, from: number, to: number, now: number): Promise<VehicleHold[]>;
  /**
   * Adds the blackout unless the vehicle keeps `limits.perVehicle` live blackouts (ending after `now`) or its
   * provider `limits.perCompany`: counted and written in one transaction, so racing adds never pass a limit.
   * undefined: added; else why not (nothing written).
   */
  addBlackout(hold: VehicleHold & { provider: string }, now: number, limits: typeof BLACKOUT_LIMITS): Promise<BlackoutRefusal | undefined>;
  /** The vehicle's blackouts, earliest first. */
  blackoutsOf(slug: string): Promise<VehicleHold[]>;
  /** false: no such blackout of this vehicle. */
  removeBlackout(slug: string, id: string): Promise<boolean>;
}

type Span = { slug: string; from: number; to: number };

/** The providers whose copies are kept at most (a quote asks a few; past this the copies start again). */
const MAX_COPIES = 10_000;

/**
 * Quote-side view of holds (docs/availability.md#what-a-quote-reads): a copy of each provider's live holds, read
 * when a quote asks that provider and the copy is older than `ttlMs` (the stale providers of one quote in one query;
 * one read per provider at a time). A quote reads only the providers it may offer: one provider's blackouts never
 * cost another's quotes anything. Claims go to the database, which decides.
 */
export class HoldIndex {
  private readonly copies = new Map<string, { holds: Span[]; at: number }>();
  /** The read under way per provider; `forget` drops it, so what it reads no longer counts as fresh. */
  private readonly reading = new Map<string, { done: Promise<void> }>();

  constructor(
    readonly store: VehicleHolds,
    private readonly nowMs: () => number = () => Date.now(),
    private readonly ttlMs = 1000,
    /** The service's current Unix second: which holds are live then (an unaccepted booking's lapses at its acceptBy). */
    private readonly seconds: () => number = () => Math.floor(Date.now() / 1000),
  ) {}

  /** Resolves once each provider's copy is at most `ttlMs` old and was read after this instance last changed it. */
  async ready(providers: readonly string[]): Promise<void> {
    // A quote asks hundreds of providers whose copies are mostly fresh: nothing is built for those.
    const now = this.nowMs();
    let waits: Promise<void>[] | undefined;
    let stale: Set<string> | undefined;
    for (const p of providers) {
      const copy = this.copies.get(p);
      if (copy !== undefined && now - copy.at <= this.ttlMs) continue;
      const under = this.reading.get(p);
      if (under) (waits ??= []).push(under.done);
      else (stale ??= new Set()).add(p);
    }
    if (stale) (waits ??= []).push(this.read([...stale], now));
    if (waits) await Promise.all(waits);
  }

  /** Whether the provider's copy holds any vehicle at all (call `ready` first): most hold none. */
  holdsAny(provider: string): boolean {
    return (this.copies.get(provider)?.holds.length ?? 0) > 0;
  }

  private read(providers: string[], now: number): Promise<void> {
    const entry = { done: Promise.resolve() };
    for (const p of providers) this.reading.set(p, entry);
    entry.done = (async () => {
      try {
        const seconds = this.seconds();
        const rows = await this.store.liveHoldsOf(providers, seconds - 86_400, seconds);
        const byProvider = new Map<string, Span[]>(providers.map((p) => [p, []]));
        for (const h of rows) byProvider.get(h.provider)?.push({ slug: h.slug, from: h.from, to: h.to });
        if (this.copies.size + providers.length > MAX_COPIES) this.copies.clear();
        for (const p of providers) {
          if (this.reading.get(p) === entry) this.copies.set(p, { holds: byProvider.get(p)!, at: now });
          // Forgotten meanwhile: what was read serves the quotes waiting on it (unless a newer read did), never as fresh.
          else if (!this.copies.has(p)) this.copies.set(p, { holds: byProvider.get(p)!, at: -Infinity });
        }
      } finally {
        for (const p of providers) if (this.reading.get(p) === entry) this.reading.delete(p);
      }
    })();
    return entry.done;
  }

  /** The provider's vehicles held at some moment of [from, to), from its copy as it is (call `ready` first). */
  busyNow(provider: string, from: number, to: number): ReadonlySet<string> {
    const holds = this.copies.get(provider)?.holds;
    if (!holds || holds.length === 0) return EMPTY;
    const busy = new Set<string>();
    for (const h of holds) if (h.from < to && h.to > from) busy.add(h.slug);
    return busy;
  }

  /** The provider's vehicles held at some moment of [from, to) (empty set: none). */
  async busySlugs(provider: string, from: number, to: number): Promise<ReadonlySet<string>> {
    await this.ready([provider]);
    return this.busyNow(provider, from, to);
  }

  /** Forgets the provider's copy (this instance changed its holds): its next quote reads them again. */
  forget(provider: string): void {
    this.copies.delete(provider);
    this.reading.delete(provider);
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
