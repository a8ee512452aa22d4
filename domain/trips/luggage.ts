/** Outcome of reading a count field: a number, "not specified", or a reason it is invalid. */
export type CountReading = { ok: true; value: number | undefined } | { ok: false; message: string };

const WHOLE = /^\d{1,9}$/;

/**
 * Reads `luggageCount` as received (spec luggageCount rules 2 and 4): optional; trimmed; missing, null
 * or empty means "not specified" (undefined — never 0); otherwise a whole number ≥ 0.
 */
export function readLuggageCount(raw: string | null | undefined): CountReading {
  if (raw === undefined || raw === null) return { ok: true, value: undefined };
  const s = raw.trim();
  if (s === "") return { ok: true, value: undefined };
  if (!WHOLE.test(s)) return { ok: false, message: "must be a whole number of 0 or more (or empty when not known)" };
  return { ok: true, value: Number(s) };
}

/** Reads `passengerCount`: required, trimmed, a whole number ≥ 1. */
export function readPassengerCount(raw: string | null | undefined): CountReading {
  const s = (raw ?? "").trim();
  if (s === "") return { ok: false, message: "is required" };
  if (!WHOLE.test(s) || Number(s) < 1) return { ok: false, message: "must be a whole number of 1 or more" };
  return { ok: true, value: Number(s) };
}

/** The luggageCount string as stored and shown: absent when not specified (rule 4), else the number. */
export function luggageCountField(count: number | undefined): { luggageCount?: string } {
  return count === undefined ? {} : { luggageCount: String(count) };
}

/**
 * Whether a vehicle suits the luggage asked for (rule 1: on a quote option luggageCount is the vehicle's
 * capacity). Without a luggage requirement every vehicle suits; with one, an unknown capacity never does.
 */
export function holdsLuggage(maxLuggage: number | null, luggageCount: number | undefined): boolean {
  if (luggageCount === undefined) return true;
  return maxLuggage !== null && maxLuggage >= luggageCount;
}
