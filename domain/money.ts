const DECIMAL = /^(\d{1,12})(?:\.(\d{1,2}))?$/;

/** A decimal amount string ("125", "125.5", "125.50") in integer cents; undefined when it is not one. */
export function toCents(amount: string): number | undefined {
  const m = DECIMAL.exec(amount.trim());
  if (!m) return undefined;
  return Number(m[1]) * 100 + Number((m[2] ?? "0").padEnd(2, "0"));
}

/** Integer cents as a decimal string with two decimals: 12500 → "125.00". */
export function formatCents(cents: number): string {
  const whole = Math.floor(cents / 100);
  const rest = cents % 100;
  return `${whole}.${rest < 10 ? "0" : ""}${rest}`;
}

const TRIP_AMOUNT = /^(\d{1,12})(?:\.(\d{1,2})0*)?$/;

/**
 * An amount as a trip's parties send it (GNet sends "1.50000"): zeros past the cents are accepted and dropped,
 * any other digit past the cents is not. Normalised to two decimals; undefined when it is not an amount.
 */
export function normaliseTripAmount(amount: string): string | undefined {
  const m = TRIP_AMOUNT.exec(amount.trim());
  if (!m) return undefined;
  return formatCents(Number(m[1]) * 100 + Number((m[2] ?? "0").padEnd(2, "0")));
}
