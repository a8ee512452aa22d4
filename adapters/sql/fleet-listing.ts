import { and, eq, sql, type Column, type SQL } from "drizzle-orm";
import { likePattern, type FleetListing } from "../../domain/fleet/listing";

/** The fleet table's columns a listing filters on, as either database's schema names them. */
export interface FleetListingColumns {
  netid: Column;
  type: Column;
  active: Column;
  name: Column;
  slug: Column;
}

/**
 * Which of a company's entries a listing selects: of its type, active or not, and whose name or slug holds its
 * text. `like` compares ASCII letters case-insensitively: LIKE in SQLite, ILIKE in PostgreSQL.
 */
export function fleetListingWhere(t: FleetListingColumns, netid: string, listing: FleetListing, like: "LIKE" | "ILIKE"): SQL | undefined {
  const op = sql.raw(like);
  const text = listing.q === undefined ? undefined : likePattern(listing.q);
  return and(
    eq(t.netid, netid),
    listing.type === undefined ? undefined : eq(t.type, listing.type),
    listing.active === undefined ? undefined : eq(t.active, listing.active),
    text === undefined ? undefined : sql`(${t.name} ${op} ${text} ESCAPE '\\' OR ${t.slug} ${op} ${text} ESCAPE '\\')`,
  );
}
