/**
 * Why a production key is too weak to use, or undefined when it looks random enough. These are cheap tests for
 * placeholders and hand-typed keys (32 × "a", all zeros, "abcd" repeated, "0123456789…"), not a proof of
 * randomness: a generated key (`openssl rand -hex 32`, `-base64 48`) always passes.
 */

/** Bits a JWT secret must show when each character is weighed by how often it occurs in the secret. */
const MIN_SECRET_BITS = 80;
const MIN_DISTINCT_CHARACTERS = 8;
/** 32 random bytes have about 30 distinct values; fewer than 16 happens by chance with negligible odds. */
const MIN_DISTINCT_KEY_BYTES = 16;

/** Text of well-known example secrets (jwt.io's HS256 examples): anyone can sign with them. */
const KNOWN_EXAMPLES = ["your-256-bit-secret", "a-string-secret-at-least-256-bits-long"];
/** How placeholder secrets copied from examples and templates begin. */
const PLACEHOLDER_STARTS = ["replace-this", "changeme", "secret", "example"];
/**
 * Words templates write where a secret goes (docs/security.md#placeholder-secrets), in any letter case, standing
 * alone between `_`, `-` or any other character that is no letter: `your_jwt_secret_here`, `REPLACE-ME-…`,
 * `my-example-key-2024`. A random key holds such a word with negligible odds.
 */
const PLACEHOLDER_WORDS: ReadonlySet<string> = new Set(["replace", "replaceme", "your", "changeme", "example", "secret"]);
/** Placeholders spelled across words: `change-me`, `Replace_Me`. */
const PLACEHOLDER_JOINED = ["changeme", "replaceme"];
/** A template's slot: `<your-secret>`, `<jwt secret>`. */
const TEMPLATE_SLOT = /<[^<>]*>/;

/** Why a secret is a well-known placeholder (case-insensitive), or undefined. */
export function placeholderSecretReason(secret: string): string | undefined {
  const lower = secret.toLowerCase();
  // The reason never quotes the secret, not even its placeholder part.
  if (KNOWN_EXAMPLES.some((e) => lower.includes(e))) return "it contains a published example secret (jwt.io's)";
  if (PLACEHOLDER_STARTS.some((p) => lower.startsWith(p))) return `it starts like a placeholder (${PLACEHOLDER_STARTS.join(", ")})`;
  if (TEMPLATE_SLOT.test(secret)) return "it holds a template's <…> slot";
  const words = lower.split(/[^a-z]+/);
  const squashed = lower.replace(/[-_\s.]+/g, "");
  if (words.some((w) => PLACEHOLDER_WORDS.has(w)) || PLACEHOLDER_JOINED.some((p) => squashed.includes(p)))
    return `it is made of a placeholder's words (${[...PLACEHOLDER_WORDS].join(", ")}, joined with _ or -)`;
  return undefined;
}

/** Why the JWT secret (text) is weak, or undefined. */
export function weakSecretReason(secret: string): string | undefined {
  const placeholder = placeholderSecretReason(secret);
  if (placeholder) return placeholder;
  const symbols = [...secret];
  if (new Set(symbols).size < MIN_DISTINCT_CHARACTERS) return `it uses fewer than ${MIN_DISTINCT_CHARACTERS} distinct characters`;
  if (repeatsItself(symbols)) return "it repeats a shorter pattern";
  if (isRun(symbols.map((c) => c.codePointAt(0)!))) return "it is mostly a run of consecutive characters";
  if (shannonBits(symbols) < MIN_SECRET_BITS) return `it carries less than ${MIN_SECRET_BITS} bits of entropy`;
  return undefined;
}

/** Why the secrets key (its bytes) is weak, or undefined. */
export function weakKeyReason(key: Uint8Array): string | undefined {
  const bytes = [...key];
  if (new Set(bytes).size < MIN_DISTINCT_KEY_BYTES) return `it has fewer than ${MIN_DISTINCT_KEY_BYTES} distinct byte values`;
  if (repeatsItself(bytes)) return "it repeats a shorter pattern";
  if (isRun(bytes)) return "it is mostly a run of consecutive bytes";
  return undefined;
}

/** Whether the sequence is a shorter sequence repeated (a trailing partial copy included). */
function repeatsItself<T>(items: T[]): boolean {
  for (let period = 1; period <= items.length / 2; period++) {
    let repeats = true;
    for (let i = period; i < items.length && repeats; i++) repeats = items[i] === items[i - period];
    if (repeats) return true;
  }
  return false;
}

/** Whether three quarters of neighbours are equal or next to each other ("abcdefgh…xyz0123", "0123…", 00 01 02 …); random keys seldom are. */
function isRun(codes: number[]): boolean {
  if (codes.length < 3) return false;
  let close = 0;
  for (let i = 1; i < codes.length; i++) if (Math.abs(codes[i] - codes[i - 1]) <= 1) close++;
  return close * 4 >= (codes.length - 1) * 3;
}

/** Length times the Shannon entropy of the character frequencies, in bits. */
function shannonBits(symbols: string[]): number {
  const counts = new Map<string, number>();
  for (const s of symbols) counts.set(s, (counts.get(s) ?? 0) + 1);
  let perSymbol = 0;
  for (const n of counts.values()) {
    const p = n / symbols.length;
    perSymbol -= p * Math.log2(p);
  }
  return perSymbol * symbols.length;
}
