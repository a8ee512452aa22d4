import type { FieldError } from "../errors";
import type { FleetEntry } from "./entry";
import type { NewFleetEntry } from "./ports";
import { slugBase } from "./slug";
import type { FleetEntryDraft } from "./validation";

/** How an import treats the fleet already there (docs/operator.md#fleet-import). */
export const IMPORT_MODES = ["upsert", "replace", "append"] as const;
export type ImportMode = (typeof IMPORT_MODES)[number];

/** One valid row of a file: its fields and the slug it names, if any. */
export interface ImportRow {
  row: number;
  draft: FleetEntryDraft;
  slug?: string;
}

/** What an import changes: entries to add (fresh slugs), to rewrite, to delete; rows that match an entry as it is. */
export interface ImportPlan {
  inserts: NewFleetEntry[];
  updates: FleetEntry[];
  removes: FleetEntry[];
  unchanged: number;
}

const SLUG = /^[a-z0-9][a-z0-9-]{0,99}$/;
const nth = (base: string, n: number) => (n === 1 ? base : `${base}-${n}`);

/** A row's `slug` cell normalised, or why it is refused. */
export function givenSlug(value: unknown): { slug?: string; problem?: string } {
  if (value === undefined || value === null || value === "") return {};
  const slug = typeof value === "string" ? value.trim().toLowerCase() : "";
  return SLUG.test(slug) ? { slug } : { problem: "must be 1–100 characters of a-z, 0-9 and -, starting with a letter or digit" };
}

/**
 * The changes that make the fleet hold the file's rows. upsert and replace match a row to the entry with its
 * `externalId`, else with its slug (given, or the one its name generates: the n-th row of a name its n-th slug,
 * `base`, `base-2`, … as an append to an empty fleet would give them), and rewrite that entry only when a field
 * differs; replace also deletes every entry no row matched. append adds every row. A file naming one externalId or
 * slug twice, or an append naming an externalId already in the fleet, is refused (errors per row).
 */
export function planImport(
  netid: string,
  mode: ImportMode,
  rows: ImportRow[],
  existing: FleetEntry[],
  now: number,
): { ok: true; plan: ImportPlan } | { ok: false; errors: Array<FieldError & { row: number }> } {
  const errors: Array<FieldError & { row: number }> = [];
  const byExternal = new Map(existing.filter((e) => e.externalId).map((e) => [e.externalId!, e]));
  const bySlug = new Map(existing.map((e) => [e.slug, e]));
  const seenExternal = new Map<string, number>();
  const seenSlug = new Map<string, number>();
  for (const { row, draft, slug } of rows) {
    const id = draft.externalId;
    if (id) {
      const first = seenExternal.get(id);
      if (first !== undefined) errors.push({ row, field: "externalId", message: `is also the externalId of row ${first}` });
      else seenExternal.set(id, row);
      const taken = byExternal.get(id);
      if (mode === "append" && taken) errors.push({ row, field: "externalId", message: `is already used by your entry ${taken.slug}` });
    }
    if (slug) {
      const first = seenSlug.get(slug);
      if (first !== undefined) errors.push({ row, field: "slug", message: `is also the slug of row ${first}` });
      else seenSlug.set(slug, row);
    }
  }
  if (errors.length > 0) return { ok: false, errors };

  const plan: ImportPlan = { inserts: [], updates: [], removes: [], unchanged: 0 };
  const fresh = (r: ImportRow): NewFleetEntry => ({
    ...r.draft,
    netid,
    slugBase: r.slug ?? slugBase(netid, r.draft.name),
    ...(r.slug ? { exactSlug: true } : {}),
    createdAt: now,
    updatedAt: now,
  });
  if (mode === "append") {
    plan.inserts = rows.map(fresh);
    return { ok: true, plan };
  }
  const claimed = new Set<string>();
  const generated = new Map<string, number>();
  for (const r of rows) {
    let match = r.draft.externalId ? byExternal.get(r.draft.externalId) : undefined;
    if (!match) {
      let key = r.slug;
      if (!key) {
        const base = slugBase(netid, r.draft.name);
        const n = (generated.get(base) ?? 0) + 1;
        generated.set(base, n);
        key = nth(base, n);
      }
      const candidate = bySlug.get(key);
      // An entry with another externalId is another vehicle, even under this slug.
      if (candidate && !(r.draft.externalId && candidate.externalId && candidate.externalId !== r.draft.externalId)) match = candidate;
    }
    if (!match || claimed.has(match.slug)) {
      plan.inserts.push(fresh(r));
      continue;
    }
    claimed.add(match.slug);
    const next: FleetEntry = { ...match, ...r.draft, externalId: r.draft.externalId ?? match.externalId ?? null };
    if (sameFields(match, next)) plan.unchanged++;
    else plan.updates.push({ ...next, updatedAt: now });
  }
  if (mode === "replace") plan.removes = existing.filter((e) => !claimed.has(e.slug));
  return { ok: true, plan };
}

function sameFields(a: FleetEntry, b: FleetEntry): boolean {
  const keys: Array<keyof FleetEntry> = ["type", "name", "description", "imageUrl", "maxPassengers", "maxLuggage", "lat", "lon"];
  keys.push("minimumRate", "hourlyRate", "currency", "active");
  return keys.every((k) => a[k] === b[k]) && a.airports.join(",") === b.airports.join(",") && (a.externalId ?? null) === (b.externalId ?? null);
}
