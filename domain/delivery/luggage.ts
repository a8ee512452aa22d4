import type { LuggageMode } from "./integration";

/** The notes line a `notes` partner receives (spec, luggageCount rule 3). */
export const LUGGAGE_LINE_PREFIX = "Luggage Count : ";
const LUGGAGE_LINE = /^Luggage Count : .*$/;

/**
 * The trip notes a partner receives: for a `notes` partner with a known luggage count, the notes with exactly one
 * line `Luggage Count : <value>` at the end (an earlier such line is replaced, not repeated); otherwise the notes
 * as they are. The stored booking is never changed by this.
 */
export function notesForPartner(notes: string | undefined, luggageCount: string | undefined, mode: LuggageMode): string | undefined {
  const known = luggageCount !== undefined && luggageCount.trim() !== "";
  if (mode !== "notes" || !known) return notes;
  const kept = (notes ?? "")
    .split(/\r?\n/)
    .filter((line) => !LUGGAGE_LINE.test(line))
    .join("\n")
    .replace(/\n+$/, "");
  const line = `${LUGGAGE_LINE_PREFIX}${luggageCount.trim()}`;
  return kept ? `${kept}\n${line}` : line;
}

/**
 * The copy of a reservation payload delivered to a partner: `luggageCount` included only when known, and for
 * a `notes` partner the luggage line appended to `specialInstructions`. Returns a new object.
 */
export function partnerCopy<T extends { luggageCount?: string; specialInstructions?: string }>(payload: T, mode: LuggageMode): T {
  const copy = { ...payload };
  const known = payload.luggageCount !== undefined && payload.luggageCount.trim() !== "";
  if (!known) delete copy.luggageCount;
  const notes = notesForPartner(payload.specialInstructions, payload.luggageCount, mode);
  if (notes !== undefined) copy.specialInstructions = notes;
  return copy;
}
