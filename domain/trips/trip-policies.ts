import type { FieldError } from "../errors";
import { DEFAULT_ETA_SPEED_KMH } from "../tracking/eta";

/**
 * The provider's policies for the trip itself (docs/terms.md#policies, docs/flights.md): the speed its ETA assumes.
 * Checked here, shown with the other policies.
 */
export interface TripPolicies {
  /** The speed the ETA assumes (km/h, default 40). */
  etaSpeedKmh?: number;
}

export const ETA_SPEED_KMH = { min: 5, max: 150 } as const;
export const TRIP_POLICY_NAMES = ["etaSpeedKmh"] as const;
export { DEFAULT_ETA_SPEED_KMH };

const wholeIn = (v: unknown, b: { min: number; max: number }): v is number =>
  typeof v === "number" && Number.isInteger(v) && v >= b.min && v <= b.max;

/** The policies' view of these: the defaults filled in. */
export function tripPoliciesView(p: TripPolicies | undefined) {
  return {
    etaSpeedKmh: p?.etaSpeedKmh ?? DEFAULT_ETA_SPEED_KMH,
  };
}

/** These members of a `policies` patch checked into `next` (null resets one to its default); each failing field named in `errors`. */
export function checkTripPolicies(input: Record<string, unknown>, next: TripPolicies, errors: FieldError[]): void {
  const whole = (name: "etaSpeedKmh", bounds: { min: number; max: number }, unit: string) => {
    const v = input[name];
    if (v === null) delete next[name];
    else if (v !== undefined) {
      if (wholeIn(v, bounds)) next[name] = v;
      else errors.push({ field: `policies.${name}`, message: `must be a whole number of ${unit} from ${bounds.min} to ${bounds.max}` });
    }
  };
  whole("etaSpeedKmh", ETA_SPEED_KMH, "km/h");
}
