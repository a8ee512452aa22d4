const MAX_SLUG_BASE = 80;

/**
 * The slug a fleet entry would get from its owner and name: lower-case, accent-free, runs of other
 * characters folded to "-", e.g. ("ACME-LIMO", "Cadillac Escalade") → "acme-limo-cadillac-escalade".
 */
export function slugBase(netid: string, name: string): string {
  const base = `${netid} ${name}`
    .normalize("NFKD")
    .replace(/\p{M}+/gu, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, MAX_SLUG_BASE)
    .replace(/-+$/, "");
  return base || "vehicle";
}

/** The first of `base`, `base-2`, `base-3`, … not in `taken`. Bounded: there are at most `taken.size` collisions. */
export function firstFreeSlug(base: string, taken: ReadonlySet<string>): string {
  if (!taken.has(base)) return base;
  for (let n = 2; n <= taken.size + 2; n++) {
    const candidate = `${base}-${n}`;
    if (!taken.has(candidate)) return candidate;
  }
  throw new Error("unreachable: more collisions than taken slugs");
}
