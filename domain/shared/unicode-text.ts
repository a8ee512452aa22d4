/**
 * Characters that change how text reads without being seen: bidirectional controls (U+202E turns "txt.exe" into
 * "exe.txt"), and zero-width or invisible characters that make two identical-looking names differ.
 */
const BIDI_CONTROL = /[\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/u;
const INVISIBLE = /[\u00AD\u034F\u115F\u1160\u17B4\u17B5\u180B-\u180F\u200B\u2060-\u2064\u206A-\u206F\u3164\uFE00-\uFE0F\uFEFF\uFFA0\u{E0000}-\u{E0FFF}]/u;
/** ZWNJ and ZWJ shape Persian, Indic and emoji text: allowed between two letters, marks or pictographs only. */
const JOINER = /[\u200C\u200D]/gu;
const JOINABLE = /[\p{L}\p{M}\p{Extended_Pictographic}]/u;

/** Why a name-like text is refused, or undefined: it holds a bidirectional control or an invisible character. */
export function hiddenCharacterProblem(text: string): string | undefined {
  const bidi = BIDI_CONTROL.exec(text);
  if (bidi) return `must not contain text-direction control characters (${codePoint(bidi[0])})`;
  const invisible = INVISIBLE.exec(text);
  if (invisible) return `must not contain invisible characters (${codePoint(invisible[0])})`;
  for (const joiner of text.matchAll(JOINER)) {
    const before = [...text.slice(0, joiner.index)].at(-1) ?? "";
    const after = [...text.slice(joiner.index + 1)][0] ?? "";
    if (!JOINABLE.test(before) || !JOINABLE.test(after)) return `must not contain invisible characters (${codePoint(joiner[0])}) outside a word`;
  }
  return undefined;
}

function codePoint(ch: string): string {
  return `U+${ch.codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0")}`;
}
