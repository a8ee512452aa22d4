import { ValidationError, type FieldError } from "../errors";

/** The columns a fleet listing may be ordered by (ties are broken by slug, in the same direction). */
export const FLEET_SORT_KEYS = ["slug", "name", "type", "maxPassengers", "active", "updatedAt"] as const;
export type FleetSortKey = (typeof FLEET_SORT_KEYS)[number];

/** One page of a company's fleet: the order, the filters, and the window. */
export interface FleetListing {
  limit: number;
  offset: number;
  /** Default: slug ascending (the listing's order before sorting existed). */
  sort?: FleetSortKey;
  order?: "asc" | "desc";
  /** Only entries of this vehicle code (upper-case). */
  type?: string;
  /** Only active (true) or inactive (false) entries. */
  active?: boolean;
  /** Only entries whose name or slug contains this text (ASCII letters compared case-insensitively). */
  q?: string;
}

/** The query strings of a listing, as sent. */
export interface FleetListingQuery {
  limit?: string;
  offset?: string;
  sort?: string;
  order?: string;
  type?: string;
  active?: string;
  q?: string;
}

const PAGE = { limitDefault: 20, limitMax: 100, offsetMax: 10_000_000 };
/** The longest text filter: a name is at most 200 characters. */
export const MAX_FLEET_FILTER_LENGTH = 200;

/** undefined when absent or blank, NaN when not a whole number. */
function wholeNumber(text: string | undefined): number | undefined {
  if (text === undefined || text.trim() === "") return undefined;
  return /^\+?\d{1,12}$/.test(text.trim()) ? Number(text.trim()) : NaN;
}

/**
 * Checks a fleet listing's query strings: limit 1–100 (default 20), offset 0–10,000,000, `sort` one of
 * FLEET_SORT_KEYS, `order` asc or desc, `type` a vehicle code, `active` true or false, `q` at most 200 characters.
 * Blank values count as absent. Every bad parameter is named in one 400.
 */
export function fleetListing(query: FleetListingQuery): FleetListing {
  const errors: FieldError[] = [];
  const limit = wholeNumber(query.limit);
  const offset = wholeNumber(query.offset);
  if (limit !== undefined && (Number.isNaN(limit) || limit < 1 || limit > PAGE.limitMax))
    errors.push({ field: "limit", message: `must be a whole number from 1 to ${PAGE.limitMax}` });
  if (offset !== undefined && (Number.isNaN(offset) || offset > PAGE.offsetMax))
    errors.push({ field: "offset", message: `must be a whole number from 0 to ${PAGE.offsetMax}` });
  const listing: FleetListing = { limit: limit ?? PAGE.limitDefault, offset: offset ?? 0 };
  const sort = query.sort?.trim();
  if (sort) {
    const key = FLEET_SORT_KEYS.find((k) => k.toLowerCase() === sort.toLowerCase());
    if (key) listing.sort = key;
    else errors.push({ field: "sort", message: `must be one of ${FLEET_SORT_KEYS.join(", ")}` });
  }
  const order = query.order?.trim().toLowerCase();
  if (order) {
    if (order === "asc" || order === "desc") listing.order = order;
    else errors.push({ field: "order", message: "must be asc or desc" });
  }
  const type = query.type?.trim().toUpperCase();
  if (type) {
    if (/^[A-Z0-9_]{1,32}$/.test(type)) listing.type = type;
    else errors.push({ field: "type", message: "must be a vehicle code: letters, digits or _ (at most 32)" });
  }
  const active = query.active?.trim().toLowerCase();
  if (active) {
    if (active === "true" || active === "false") listing.active = active === "true";
    else errors.push({ field: "active", message: "must be true or false" });
  }
  const q = query.q?.trim();
  if (q) {
    if (q.length <= MAX_FLEET_FILTER_LENGTH) listing.q = q;
    else errors.push({ field: "q", message: `must be at most ${MAX_FLEET_FILTER_LENGTH} characters` });
  }
  if (errors.length) throw new ValidationError(errors);
  return listing;
}

/** `q` as a LIKE pattern: its `%`, `_` and `\` match themselves (ESCAPE '\'). */
export function likePattern(q: string): string {
  return `%${q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}
