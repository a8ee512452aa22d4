/** How a target's and an owner's share of the delivery workers is limited. */
export interface GateOptions {
  /** Attempts to one target (scheme, host and port) at a time. */
  perTarget: number;
  /** Attempts to the endpoints of one company (the message's target company) at a time. */
  perOwner: number;
  /** Attempts in a row without a timely answer (timeout, refused connection, slow answer) that open the circuit. */
  failureThreshold: number;
  /** Seconds an open circuit holds the target's messages back; it then lets one attempt through. */
  openSeconds: number;
  /** Seconds after which even a successful answer counts against the target (it held a worker that long). */
  slowSeconds: number;
}

/** What the gate says about sending to a target now. */
export type Admission = { go: true } | { go: false; busy: true } | { go: false; busy: false; until: number };

interface TargetState {
  inFlight: number;
  failures: number;
  openUntil: number;
}

/** The key deliveries share a limit by: the URL's origin (a partner's endpoint). */
export function targetKey(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return url;
  }
}

/**
 * Per-target and per-owner concurrency and a circuit breaker: a partner that is slow holds at most `perTarget`
 * of the workers, a company whose endpoints are slow at most `perOwner` however many endpoints it has, and a
 * target that keeps failing or answering slowly is left alone for `openSeconds` (then probed with one attempt),
 * so the other partners' deliveries keep their schedule.
 */
export class TargetGate {
  private readonly targets = new Map<string, TargetState>();
  private readonly owners = new Map<string, number>();

  constructor(private readonly options: GateOptions) {}

  /** Seconds after which an answer counts as slow. */
  get slowSeconds(): number {
    return this.options.slowSeconds;
  }

  admit(key: string, owner: string, now: number): Admission {
    const state = this.targets.get(key);
    if (state && state.openUntil > now) return { go: false, busy: false, until: state.openUntil };
    if (this.inFlightOf(owner) >= this.options.perOwner) return { go: false, busy: true };
    if (!state) return { go: true };
    // Half-open (the circuit's time is up after failures): one probe at a time.
    const limit = state.failures >= this.options.failureThreshold ? 1 : this.options.perTarget;
    return state.inFlight < limit ? { go: true } : { go: false, busy: true };
  }

  /** Attempts under way to the endpoints of `owner`. */
  inFlightOf(owner: string): number {
    return this.owners.get(owner) ?? 0;
  }

  acquire(key: string, owner: string): void {
    const state = this.targets.get(key) ?? { inFlight: 0, failures: 0, openUntil: 0 };
    state.inFlight++;
    this.targets.set(key, state);
    this.owners.set(owner, this.inFlightOf(owner) + 1);
  }

  /**
   * An attempt ended after `seconds`; `answered` is false when the target did not answer at all, undefined when
   * it was never contacted (nothing to judge it by). An answer slower than `slowSeconds` counts as a failure,
   * success or not: it held a worker as long as a silent target.
   */
  release(key: string, owner: string, answered: boolean | undefined, seconds: number, now: number): void {
    const left = this.inFlightOf(owner) - 1;
    if (left > 0) this.owners.set(owner, left);
    else this.owners.delete(owner);
    const state = this.targets.get(key);
    if (!state) return;
    state.inFlight = Math.max(0, state.inFlight - 1);
    if (answered === undefined) {
      // Not contacted: its record stands as it was.
    } else if (answered && seconds < this.options.slowSeconds) state.failures = 0;
    else if (++state.failures >= this.options.failureThreshold) state.openUntil = now + this.options.openSeconds;
    // Forget targets with nothing to remember, so the map stays as small as the set of troubled partners.
    if (state.inFlight === 0 && state.failures === 0) this.targets.delete(key);
  }

  /** Whether the circuit of a target is open now (for logs and tests). */
  isOpen(key: string, now: number): boolean {
    return (this.targets.get(key)?.openUntil ?? 0) > now;
  }

  /** How many targets the gate remembers (bounded by the partners in flight or failing). */
  get size(): number {
    return this.targets.size;
  }
}
