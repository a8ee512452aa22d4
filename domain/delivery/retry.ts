/** Delivery attempts in all (first try included) before a message is given up as FAILED. */
export const MAX_ATTEMPTS = 10;
const FIRST_RETRY_SECONDS = 1;
const MAX_DELAY_SECONDS = 600;

/**
 * Seconds to wait after failed attempt number `attempt` (1-based) before the next one, or undefined when
 * no attempt is left. The first retry comes within 2 s; the delay then doubles, with ±25 % jitter, up to
 * 10 minutes. `random` is injected (0 ≤ r < 1) so the schedule is testable.
 */
export function retryDelaySeconds(attempt: number, random: () => number = Math.random): number | undefined {
  if (attempt >= MAX_ATTEMPTS) return undefined;
  const base = Math.min(FIRST_RETRY_SECONDS * 2 ** (attempt - 1), MAX_DELAY_SECONDS);
  const jittered = base * (0.75 + 0.5 * random());
  return Math.min(attempt === 1 ? 2 : MAX_DELAY_SECONDS, Math.max(0.5, jittered));
}
