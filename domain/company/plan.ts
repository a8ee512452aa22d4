/** Account plans, in ascending order. */
export const PLANS = ["FREE", "PROFESSIONAL", "ENTERPRISE"] as const;
export type Plan = (typeof PLANS)[number];

/** True when `plan` is `minimum` or a higher plan. */
export function planAtLeast(plan: Plan, minimum: Plan): boolean {
  return PLANS.indexOf(plan) >= PLANS.indexOf(minimum);
}

/** Parses a plan name case-insensitively; undefined when it names no plan. */
export function parsePlan(value: string): Plan | undefined {
  const upper = value.trim().toUpperCase();
  return (PLANS as readonly string[]).includes(upper) ? (upper as Plan) : undefined;
}

/** Fleet entries a company may keep on each plan; undefined is unlimited. */
export const FLEET_QUOTA: Record<Plan, number | undefined> = { FREE: 2_000, PROFESSIONAL: 50_000, ENTERPRISE: undefined };
