/**
 * IDN homograph checks for the domain of an e-mail address (after NFC normalisation), in the spirit of Unicode
 * TS #39's "highly restrictive" profile, as browsers apply it before showing a domain in Unicode:
 * - each label uses one script (Common and Inherited characters aside), or one of the combinations East Asian
 *   writing mixes (Latin with Han and Hiragana/Katakana, Bopomofo or Hangul);
 * - a label written only in Cyrillic or Greek letters that all look like Latin ones ("аррӏе") under a Latin
 *   top-level domain is a look-alike of a Latin domain.
 */

import { domainToUnicode } from "node:url";

const SCRIPTS = [
  "Latin",
  "Cyrillic",
  "Greek",
  "Armenian",
  "Hebrew",
  "Arabic",
  "Han",
  "Hiragana",
  "Katakana",
  "Hangul",
  "Bopomofo",
  "Thai",
  "Devanagari",
  "Georgian",
  "Cherokee",
] as const;
const SCRIPT_PATTERNS = SCRIPTS.map((name) => [name, new RegExp(`\\p{Script=${name}}`, "u")] as const);
const NEUTRAL = /[\p{Script=Common}\p{Script=Inherited}]/u;
const ALLOWED_MIXES: ReadonlyArray<ReadonlySet<string>> = [
  new Set(["Latin", "Han", "Hiragana", "Katakana"]),
  new Set(["Latin", "Han", "Bopomofo"]),
  new Set(["Latin", "Han", "Hangul"]),
];
/** Cyrillic and Greek letters that read as Latin ones in most fonts (lower case: addresses are lower-cased). */
const LATIN_LOOKALIKES = new Set([..."асԁеһіјӏорԛѕԝхуъьҽпгѵѡк", ..."αικνορτυχ"]);

function scriptOf(ch: string): string {
  if (NEUTRAL.test(ch)) return "Common";
  for (const [name, pattern] of SCRIPT_PATTERNS) if (pattern.test(ch)) return name;
  return "Other";
}

/** Why an e-mail domain looks like another one, or undefined. Punycode labels (`xn--…`) are read as what they spell. */
/**
 * The domain in one spelling for comparison and storage: UTS #46 mapping (NFC, lower case, full-width forms) and
 * punycode labels decoded, so `xn--mnchen-3ya.de` and `münchen.de` are one domain. Unchanged when it is no domain.
 */
export function canonicalDomain(domain: string): string {
  return domainToUnicode(domain) || domain;
}

export function homographProblem(domain: string): string | undefined {
  const labels = (domainToUnicode(domain) || domain).split(".");
  const tld = labels.at(-1) ?? "";
  const latinTld = /^[a-z0-9-]*$/.test(tld) || [...tld].every((c) => scriptOf(c) === "Latin" || scriptOf(c) === "Common");
  for (const label of labels) {
    const scripts = new Set([...label].map(scriptOf).filter((s) => s !== "Common"));
    if (scripts.size > 1 && !ALLOWED_MIXES.some((mix) => [...scripts].every((s) => mix.has(s))))
      return `mixes ${[...scripts].join(" and ")} letters in "${label}": it could pass for another domain`;
    const [only] = scripts;
    if (
      scripts.size === 1 &&
      (only === "Cyrillic" || only === "Greek") &&
      latinTld &&
      [...label].every((c) => scriptOf(c) === "Common" || LATIN_LOOKALIKES.has(c))
    )
      return `is written in ${only} letters that look like Latin ones ("${label}"): it could pass for another domain`;
  }
  return undefined;
}
