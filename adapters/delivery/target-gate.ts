/** How a target's share of the delivery workers is limited. */
export interface GateOptions {
  /** Attempts to one target (scheme, host and port) at a time. */
  perTarget: number;
  /** Attempts in a row without an answer (timeout, refused connection) that open the circuit. */
  failureThreshold: number;
  /** Seconds an open circuit holds the target's messages back; it then lets one attempt through. */
  openSeconds: number;
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
 * Per-target concurrency and a circuit breaker: a partner that is slow holds at most `perTarget` of the
 * workers, and one that keeps failing is left alone for `openSeconds` (then probed with one attempt), so the
 * other partners' deliveries keep their schedule.
 */
export class TargetGate {
  private readonly targets = new Map<string, TargetState>();

  constructor(private readonly options: GateOptions) {}

  admit(key: string, now: number): Admission {
    const state = this.targets.get(key);
    if (!state) return { go: true };
    if (state.openUntil > now) return { go: false, busy: false, until: state.openUntil };
    // Half-open (the circuit's time is up after failures): one probe at a time.
    const limit = state.failures >= this.options.failureThreshold ? 1 : this.options.perTarget;
    return state.inFlight < limit ? { go: true } : { go: false, busy: true };
  }

  acquire(key: string): void {
    const state = this.targets.get(key) ?? { inFlight: 0, failures: 0, openUntil: 0 };
    state.inFlight++;
    this.targets.set(key, state);
  }

  /** An attempt ended; `healthy` is false when the target did not answer at all. */
  release(key: string, healthy: boolean, now: number): void {
    const state = this.targets.get(key);
    if (!state) return;
    state.inFlight = Math.max(0, state.inFlight - 1);
    if (healthy) state.failures = 0;
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
