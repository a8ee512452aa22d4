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

/** An amount's whole part and its significant decimals (trailing zeros dropped): "1.50000" → { whole: "1", decimals: "5" }. */
export interface AmountParts {
  whole: string;
  decimals: string;
}

const ANY_DECIMAL = /^(\d{1,12})(?:\.(\d{1,16}))?$/;

/** The parts of a decimal amount as a trip's parties send it (any number of decimals up to 16); undefined when it is not one. */
export function amountParts(amount: string): AmountParts | undefined {
  const m = ANY_DECIMAL.exec(amount.trim());
  return m ? { whole: m[1], decimals: (m[2] ?? "").replace(/0+$/, "") } : undefined;
}

/**
 * A whole number of minor units (as a bigint) written with `digits` decimals, every digit spelled out however large:
 * (5000n, 0) → "5000", (12500n, 3) → "12.500".
 */
export function writeUnits(units: bigint, digits: number): string {
  if (digits === 0) return units.toString();
  const s = units.toString().padStart(digits + 1, "0");
  return `${s.slice(0, -digits)}.${s.slice(-digits)}`;
}

/** The amount with exactly the currency's `digits` decimals; undefined when it has more significant decimals than that. */
export function exactInMinorUnit(parts: AmountParts, digits: number): string | undefined {
  if (parts.decimals.length > digits) return undefined;
  return writeUnits(BigInt(parts.whole + parts.decimals.padEnd(digits, "0")), digits);
}

/** The amount rounded half up to the currency's `digits` decimals (as quotes are priced): ("5000.5", 0) → "5001". */
export function roundedToMinorUnit(parts: AmountParts, digits: number): string {
  const kept = BigInt(parts.whole + parts.decimals.slice(0, digits).padEnd(digits, "0"));
  const next = parts.decimals.charCodeAt(digits);
  return writeUnits(next >= 53 /* "5" */ ? kept + 1n : kept, digits);
}
