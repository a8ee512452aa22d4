/**
 * Characters that change how text reads without being seen: bidirectional controls (U+202E turns "txt.exe" into
 * "exe.txt"), and zero-width or invisible characters that make two identical-looking names differ.
 */
const BIDI_CONTROL = /[\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/u;
const INVISIBLE = /[\u00AD\u034F\u115F\u1160\u17B4\u17B5\u180B-\u180F\u200B\u2060-\u2064\u206A-\u206F\u3164\uFE00-\uFE0F\uFEFF\uFFA0\u{E0000}-\u{E0FFF}]/u;
/** ZWNJ and ZWJ shape Persian, Indic and emoji text: allowed between two letters, marks or pictographs only. */
const JOINER = /[\u200C\u200D]/gu;
const JOINABLE = /[\p{L}\p{M}\p{Extended_Pictographic}]/u;

/** Characters that break a line or control a terminal (C0, DEL, C1, U+2028 LINE and U+2029 PARAGRAPH SEPARATOR). */
const LINE_BREAKING = /[\u0000-\u001F\u007F-\u009F\u2028\u2029]/u;
/** Characters that draw as blank space without being spaces: the braille blank, the Hangul fillers, the musical and tag blanks. */
const BLANK_LOOKING = /[\u2800\u115F\u1160\u3164\uFFA0\u{1D159}\u{1D173}-\u{1D17A}]/u;
/** A name shows at least one letter, digit or symbol (not only spaces, marks and punctuation). */
const VISIBLE = /[\p{L}\p{N}\p{S}]/u;

/**
 * Why a name (a company's or a user's) is refused, or undefined: a line break or control character, a character
 * that looks blank, the hidden characters below, or nothing visible at all (issue 37 N12).
 */
export function nameProblem(text: string): string | undefined {
  const breaking = LINE_BREAKING.exec(text);
  if (breaking) return `must not contain line breaks or control characters (${codePoint(breaking[0])})`;
  const blank = BLANK_LOOKING.exec(text);
  if (blank) return `must not contain characters that look blank (${codePoint(blank[0])})`;
  const hidden = hiddenCharacterProblem(text);
  if (hidden) return hidden;
  if (!VISIBLE.test(text)) return "must contain at least one letter, digit or symbol";
  return undefined;
}

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
