import { and, asc, count, desc, eq, gte, inArray, lt } from "drizzle-orm";
import type { FleetEntry } from "../../domain/fleet/entry";
import { ExternalIdTakenError, FleetFullError, SlugTakenError, isExternalIdTaken, VehiclesHeldError } from "../../domain/fleet/ports";
import type { FleetImportChanges, FleetRepository, NewFleetEntry } from "../../domain/fleet/ports";
import { graceOf, heldVehiclesSql } from "../sql/hold-sql";
import { firstFreeSlug } from "../../domain/fleet/slug";
import type { FleetListing, FleetSortKey } from "../../domain/fleet/listing";
import { fleetListingWhere } from "../sql/fleet-listing";
import { changed } from "./account-repositories";
import type { Db } from "./db";
import { companies, fleetEntries } from "./schema";
import type { AnySQLiteColumn } from "drizzle-orm/sqlite-core";

type FleetRow = typeof fleetEntries.$inferSelect;

/** Row → domain entry. Airports are stored as a comma-separated list of upper-case codes. */
export function toFleetEntry(row: FleetRow): FleetEntry {
  return {
    slug: row.slug,
    netid: row.netid,
    type: row.type,
    name: row.name,
    description: row.description,
    imageUrl: row.imageUrl,
    maxPassengers: row.maxPassengers,
    maxLuggage: row.maxLuggage,
    lat: row.lat,
    lon: row.lon,
    airports: row.airports ? row.airports.split(",") : [],
    minimumRate: row.minimumRate,
    hourlyRate: row.hourlyRate,
    currency: row.currency,
    active: row.active,
    externalId: row.externalId,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}

function toRow(e: FleetEntry): FleetRow {
  return { ...e, airports: e.airports.join(","), externalId: e.externalId ?? null };
}

/** The column each listing order sorts on. */
const SORT_COLUMNS: Record<FleetSortKey, AnySQLiteColumn> = {
  slug: fleetEntries.slug,
  name: fleetEntries.name,
  type: fleetEntries.type,
  maxPassengers: fleetEntries.maxPassengers,
  active: fleetEntries.active,
  updatedAt: fleetEntries.updatedAt,
};

export class SqliteFleetRepository implements FleetRepository {
  constructor(private readonly db: Db) {}

  async listByNetid(netid: string, listing: FleetListing) {
    const where = fleetListingWhere(fleetEntries, netid, listing, "LIKE");
    const direction = listing.order === "desc" ? desc : asc;
    const key = SORT_COLUMNS[listing.sort ?? "slug"];
    const items = this.db
      .select()
      .from(fleetEntries)
      .where(where)
      .orderBy(...(key === fleetEntries.slug ? [direction(key)] : [direction(key), direction(fleetEntries.slug)]))
      .limit(listing.limit)
      .offset(listing.offset)
      .all()
      .map(toFleetEntry);
    const total = this.db.select({ n: count() }).from(fleetEntries).where(where).get()?.n ?? 0;
    return { items, total };
  }

  async find(netid: string, slug: string): Promise<FleetEntry | undefined> {
    const row = this.db
      .select()
      .from(fleetEntries)
      .where(and(eq(fleetEntries.slug, slug.trim().toLowerCase()), eq(fleetEntries.netid, netid)))
      .get();
    return row ? toFleetEntry(row) : undefined;
  }

  async insertAll(entries: NewFleetEntry[], onProgress?: (done: number) => void, maxEntries?: number): Promise<FleetEntry[]> {
    return this.applyImport(entries[0]?.netid ?? "", { removes: [], updates: [], inserts: entries }, onProgress, maxEntries);
  }

  async applyImport(netid: string, changes: FleetImportChanges, onProgress?: (done: number) => void, maxEntries?: number): Promise<FleetEntry[]> {
    const saved: FleetEntry[] = [];
    const entries = changes.inserts;
    // Slugs are chosen inside the write transaction, so two writers can never pick the same one.
    try {
      this.db.transaction((tx) => {
        this.removeUnheld(netid, changes.removes);
        for (const entry of changes.updates) {
          const { slug, netid: owner, createdAt, ...fields } = toRow(entry);
          tx.update(fleetEntries).set(fields).where(and(eq(fleetEntries.slug, slug), eq(fleetEntries.netid, owner))).run();
        }
        // The quota is counted in the same transaction, so simultaneous imports cannot pass it together.
        if (maxEntries !== undefined && entries.length > 0) {
          const current = tx.select({ n: count() }).from(fleetEntries).where(eq(fleetEntries.netid, netid)).get()?.n ?? 0;
          if (current + entries.length > maxEntries) throw new FleetFullError(current);
        }
        const takenByBase = new Map<string, Set<string>>();
        for (let i = 0; i < entries.length; i++) {
          const { slugBase, exactSlug, ...fields } = entries[i];
          let taken = takenByBase.get(slugBase);
          if (!taken) {
            taken = new Set(
              tx
                .select({ slug: fleetEntries.slug })
                .from(fleetEntries)
                .where(and(gte(fleetEntries.slug, slugBase), lt(fleetEntries.slug, `${slugBase}\uffff`)))
                .all()
                .map((r) => r.slug),
            );
            takenByBase.set(slugBase, taken);
          }
          const slug = firstFreeSlug(slugBase, taken);
          if (exactSlug && slug !== slugBase) throw new SlugTakenError(slugBase);
          // Every family whose base is a prefix of the new slug ("acme-sedan" for "acme-sedan-2") must see it.
          for (let len = 1; len <= slug.length; len++) takenByBase.get(slug.slice(0, len))?.add(slug);
          const entry: FleetEntry = { ...fields, slug };
          tx.insert(fleetEntries).values(toRow(entry)).run();
          saved.push(entry);
          if (onProgress && (i % 500 === 499 || i === entries.length - 1)) onProgress(i + 1);
        }
      });
    } catch (error) {
      if (isExternalIdTaken(error)) throw new ExternalIdTakenError();
      throw error;
    }
    return saved;
  }

  /**
   * Deletes the company's entries `slugs` in the caller's transaction, unless a live booking holds one
   * (VehiclesHeldError); answers how many it deleted.
   */
  private removeUnheld(netid: string, slugs: string[]): number {
    if (slugs.length === 0) return 0;
    const client = this.db.$client;
    const now = Math.floor(Date.now() / 1000);
    const held = client
      .query<{ slug: string; transaction_id: string }, [string, number, number]>(heldVehiclesSql("SELECT value FROM json_each(?1)", "?2", "?3"))
      .all(JSON.stringify(slugs), graceOf(now), now);
    if (held.length > 0) throw new VehiclesHeldError(held.map((h) => ({ slug: h.slug, transactionId: h.transaction_id })));
    const remove = client.query("DELETE FROM fleet_entries WHERE slug = ? AND netid = ?");
    let removed = 0;
    for (const slug of slugs) removed += remove.run(slug, netid).changes;
    return removed;
  }

  async update(entry: FleetEntry): Promise<boolean> {
    const { slug, netid, createdAt, ...fields } = toRow(entry);
    try {
      return changed(
        this.db
          .update(fleetEntries)
          .set(fields)
          .where(and(eq(fleetEntries.slug, slug), eq(fleetEntries.netid, netid)))
          .run(),
      );
    } catch (error) {
      if (isExternalIdTaken(error)) throw new ExternalIdTakenError();
      throw error;
    }
  }

  async remove(netid: string, slug: string): Promise<boolean> {
    // IMMEDIATE, as a claim is: no hold is written between the check and the delete.
    return this.db.$client.transaction(() => this.removeUnheld(netid, [slug.trim().toLowerCase()]) > 0).immediate();
  }
}

/**
 * Sets inactive every vehicle of a requester-only (CO) company, added before such a company could no longer add any
 * (docs/security.md#requester-only-companies): a CO company offers nothing. Run at each start; the fleet's triggers
 * log the change, so search and quotes drop them. Answers the slugs it changed.
 */
export function withdrawRequesterOnlyFleet(db: Db, now: number): string[] {
  const requesterOnly = db.select({ netid: companies.netid }).from(companies).where(eq(companies.coType, "CO"));
  return db
    .update(fleetEntries)
    .set({ active: false, updatedAt: now })
    .where(and(eq(fleetEntries.active, true), inArray(fleetEntries.netid, requesterOnly)))
    .returning({ slug: fleetEntries.slug })
    .all()
    .map((r) => r.slug);
}
