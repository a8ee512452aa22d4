/**
 * Search text rules: `q` words match as substrings of the normalised
 * (lower-case, accents removed) text of name + description + type.
 */

/** Only ASCII characters: their NFKD form is themselves, and none is a combining mark. */
const ASCII = /^[\x00-\x7f]*$/;

/** Lower-cases and strips accents (NFKD, combining marks removed), so "Mercédès" matches "mercedes". */
export function normalizeText(text: string): string {
  // The index normalises every distinct name + description + type as it builds: ~50k texts at 1M entries,
  // nearly all ASCII, for which this is the same result several times faster.
  if (ASCII.test(text)) return text.toLowerCase();
  return text.normalize("NFKD").replace(/\p{M}+/gu, "").toLowerCase();
}

/** The normalised text a fleet entry is searched by. Fields are joined by a space so no word spans two fields. */
export function searchTextOf(entry: { name: string; description: string; type: string }): string {
  return normalizeText(`${entry.name} ${entry.description} ${entry.type}`);
}

/** The normalised words of a query; a blank query has none (and matches everything). */
export function queryWords(q: string | undefined): string[] {
  if (!q) return [];
  return normalizeText(q)
    .split(/\s+/)
    .filter((w) => w.length > 0);
}

/** True when every word occurs in the (already normalised) text. */
export function matchesAllWords(normalizedText: string, words: readonly string[]): boolean {
  for (const w of words) if (!normalizedText.includes(w)) return false;
  return true;
}
