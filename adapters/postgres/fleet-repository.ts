import { and, count, eq, inArray, sql } from "drizzle-orm";
import type { FleetEntry } from "../../domain/fleet/entry";
import { ExternalIdTakenError, FleetFullError, SlugTakenError, isExternalIdTaken, VehiclesHeldError } from "../../domain/fleet/ports";
import type { FleetImportChanges, FleetRepository, NewFleetEntry } from "../../domain/fleet/ports";
import { graceOf, heldVehiclesSql } from "../sql/hold-sql";
import { vehicleLockKey } from "./vehicle-holds";
import type { PgDb } from "./db";
import { companies, fleetEntries } from "./schema";
import type { FleetListing, FleetSortKey } from "../../domain/fleet/listing";
import { fleetListingWhere } from "../sql/fleet-listing";

/** What each listing order sorts on. */
const SORT_SQL: Record<FleetSortKey, ReturnType<typeof sql>> = {
  slug: sql`${fleetEntries.slug} COLLATE "C"`,
  name: sql`${fleetEntries.name} COLLATE "C"`,
  type: sql`${fleetEntries.type} COLLATE "C"`,
  maxPassengers: sql`${fleetEntries.maxPassengers}`,
  active: sql`${fleetEntries.active}`,
  updatedAt: sql`${fleetEntries.updatedAt}`,
};

type FleetRow = typeof fleetEntries.$inferSelect;
type Tx = Parameters<Parameters<PgDb["transaction"]>[0]>[0];

/** Row → domain entry. Airports are stored as a comma-separated list of upper-case codes. */
function toFleetEntry(row: FleetRow): FleetEntry {
  return { ...row, airports: row.airports ? row.airports.split(",") : [] };
}

function toRow(e: FleetEntry): FleetRow {
  return { ...e, airports: e.airports.join(","), externalId: e.externalId ?? null };
}

/**
 * The advisory lock every insert of fleet entries holds until it commits: slugs are chosen and the company's count
 * checked under it, so two instances can neither pick one slug nor pass a maximum together. Fleet writes queue on
 * the fleet stamp's row until commit anyway, so the lock costs no concurrency they had.
 */
export const FLEET_INSERT_LOCK_KEY = 0x666c_6565_745f_696en; // "fleet_in"

/** Rows per INSERT statement of a mass insert (17 parameters each, well under PostgreSQL's 65,535). */
const INSERT_BATCH = 1000;

/** The nth candidate slug of `base`: `base`, `base-2`, `base-3`, … */
const candidate = (base: string, n: number) => (n === 1 ? base : `${base}-${n}`);

/**
 * Which candidate slugs are taken, learnt by exact lookups on the primary key (whatever the database's collation):
 * a batch of entries asks for the first free candidates of all its bases in a few queries.
 */
class SlugFinder {
  private readonly taken = new Set<string>();
  private readonly probed = new Set<string>();
  /** Per base, the first candidate not known to be taken: slugs are only added here, so it never moves back. */
  private readonly firstOpen = new Map<string, number>();

  constructor(private readonly tx: Tx) {}

  /** Looks up enough candidates of each base that `count` free ones are known, in rounds (one query each). */
  async prepare(counts: Map<string, number>): Promise<void> {
    for (let round = 0; round < 32; round++) {
      const probes: string[] = [];
      for (const [base, wanted] of counts) {
        // Each taken candidate met widens the window by one more: a crowded family is covered in few rounds.
        let free = 0;
        let takenSeen = 0;
        for (let n = this.firstOpen.get(base) ?? 1; free < wanted + takenSeen; n++) {
          const slug = candidate(base, n);
          if (this.taken.has(slug)) takenSeen++;
          else {
            free++;
            if (!this.probed.has(slug)) probes.push(slug);
          }
        }
      }
      if (probes.length === 0) return;
      await this.probe(probes);
    }
  }

  /** The first free slug of `base`, now taken. */
  async take(base: string): Promise<string> {
    for (let n = this.firstOpen.get(base) ?? 1; ; n++) {
      const slug = candidate(base, n);
      if (!this.taken.has(slug) && !this.probed.has(slug)) await this.probe([slug]);
      if (this.taken.has(slug)) continue;
      this.taken.add(slug);
      this.probed.add(slug);
      this.firstOpen.set(base, n + 1);
      return slug;
    }
  }

  private async probe(slugs: string[]): Promise<void> {
    const rows = await this.tx.select({ slug: fleetEntries.slug }).from(fleetEntries).where(inArray(fleetEntries.slug, slugs));
    for (const slug of slugs) this.probed.add(slug);
    for (const { slug } of rows) this.taken.add(slug);
  }
}

/** Fleet entries on PostgreSQL, shared by every instance. */
export class PgFleetRepository implements FleetRepository {
  constructor(private readonly db: PgDb) {}

  async listByNetid(netid: string, listing: FleetListing) {
    const where = fleetListingWhere(fleetEntries, netid, listing, "ILIKE");
    const direction = sql.raw(listing.order === "desc" ? "DESC" : "ASC");
    // Text in byte order (COLLATE "C"), as SQLite compares it; ties by slug in the same direction.
    const key = SORT_SQL[listing.sort ?? "slug"];
    const order =
      listing.sort === undefined || listing.sort === "slug" ? [sql`${key} ${direction}`] : [sql`${key} ${direction}`, sql`${SORT_SQL.slug} ${direction}`];
    const rows = await this.db
      .select()
      .from(fleetEntries)
      .where(where)
      .orderBy(...order)
      .limit(listing.limit)
      .offset(listing.offset);
    const [total] = await this.db.select({ n: count() }).from(fleetEntries).where(where);
    return { items: rows.map(toFleetEntry), total: Number(total?.n ?? 0) };
  }

  async find(netid: string, slug: string): Promise<FleetEntry | undefined> {
    const [row] = await this.db
      .select()
      .from(fleetEntries)
      .where(and(eq(fleetEntries.slug, slug.trim().toLowerCase()), eq(fleetEntries.netid, netid)))
      .limit(1);
    return row ? toFleetEntry(row) : undefined;
  }

  async insertAll(entries: NewFleetEntry[], onProgress?: (done: number) => void, maxEntries?: number): Promise<FleetEntry[]> {
    if (entries.length === 0) return [];
    return this.applyImport(entries[0].netid, { removes: [], updates: [], inserts: entries }, onProgress, maxEntries);
  }

  async applyImport(netid: string, changes: FleetImportChanges, onProgress?: (done: number) => void, maxEntries?: number): Promise<FleetEntry[]> {
    const entries = changes.inserts;
    try {
      // Before the transaction, on a connection of its own: a query on the pool from inside a transaction that holds
      // the import lock could wait forever for a connection held by imports queued on that lock.
      if (changes.removes.length > 0) await refuseHeld(this.db.$client, changes.removes);
      return await this.db.transaction(async (tx) => {
        await tx.execute(sql`SELECT pg_advisory_xact_lock(${FLEET_INSERT_LOCK_KEY.toString()}::bigint)`);
        if (changes.removes.length > 0) {
          for (let i = 0; i < changes.removes.length; i += INSERT_BATCH)
            await tx.delete(fleetEntries).where(and(eq(fleetEntries.netid, netid), inArray(fleetEntries.slug, changes.removes.slice(i, i + INSERT_BATCH))));
        }
        for (const entry of changes.updates) {
          const { slug, netid: owner, createdAt, ...fields } = toRow(entry);
          await tx.update(fleetEntries).set(fields).where(and(eq(fleetEntries.slug, slug), eq(fleetEntries.netid, owner)));
        }
        if (maxEntries !== undefined && entries.length > 0) {
          const [row] = await tx.select({ n: count() }).from(fleetEntries).where(eq(fleetEntries.netid, netid));
          const current = Number(row?.n ?? 0);
          if (current + entries.length > maxEntries) throw new FleetFullError(current);
        }
        const slugs = new SlugFinder(tx);
        const saved: FleetEntry[] = [];
        for (let start = 0; start < entries.length; start += INSERT_BATCH) {
          const batch = entries.slice(start, start + INSERT_BATCH);
          const counts = new Map<string, number>();
          for (const e of batch) counts.set(e.slugBase, (counts.get(e.slugBase) ?? 0) + 1);
          await slugs.prepare(counts);
          const rows: FleetRow[] = [];
          for (const { slugBase, exactSlug, ...fields } of batch) {
            const entry: FleetEntry = { ...fields, slug: await slugs.take(slugBase) };
            if (exactSlug && entry.slug !== slugBase) throw new SlugTakenError(slugBase);
            saved.push(entry);
            rows.push(toRow(entry));
          }
          await tx.insert(fleetEntries).values(rows);
          onProgress?.(start + batch.length);
        }
        return saved;
      });
    } catch (error) {
      if (isExternalIdTaken(error)) throw new ExternalIdTakenError();
      throw error;
    }
  }

  async update(entry: FleetEntry): Promise<boolean> {
    const { slug, netid, createdAt, ...fields } = toRow(entry);
    try {
      const rows = await this.db
        .update(fleetEntries)
        .set(fields)
        .where(and(eq(fleetEntries.slug, slug), eq(fleetEntries.netid, netid)))
        .returning({ slug: fleetEntries.slug });
      return rows.length > 0;
    } catch (error) {
      if (isExternalIdTaken(error)) throw new ExternalIdTakenError();
      throw error;
    }
  }

  async remove(netid: string, slug: string): Promise<boolean> {
    const key = slug.trim().toLowerCase();
    return (await this.db.$client.begin(async (tx) => {
      // Under the vehicle's lock, as a claim takes it: no hold is written between the check and the delete.
      await tx.unsafe("SELECT pg_advisory_xact_lock(hashtextextended($1, 19005))", [vehicleLockKey(key)]);
      await refuseHeld(tx, [key]);
      const rows = await tx.unsafe("DELETE FROM fleet_entries WHERE slug = $1 AND netid = $2 RETURNING slug", [key, netid]);
      return rows.length > 0;
    })) as boolean;
  }
}

/** VehiclesHeldError when a live booking holds one of `slugs` (docs/availability.md#a-held-vehicle-cannot-be-deleted). */
async function refuseHeld(client: Pick<PgDb["$client"], "unsafe">, slugs: string[]): Promise<void> {
  const now = Math.floor(Date.now() / 1000);
  const held = await client.unsafe<Array<{ slug: string; transaction_id: string }>>(heldVehiclesSql("SELECT unnest($1::text[])", "$2", "$3"), [
    slugs,
    graceOf(now),
    now,
  ]);
  if (held.length > 0) throw new VehiclesHeldError(held.map((h) => ({ slug: h.slug, transactionId: h.transaction_id })));
}

/**
 * Sets inactive every vehicle of a requester-only (CO) company, added before such a company could no longer add any
 * (docs/security.md#requester-only-companies): a CO company offers nothing. Run at each start; the fleet's triggers
 * log and announce the change, so search and quotes drop them. Answers the slugs it changed.
 */
export async function withdrawRequesterOnlyFleet(db: PgDb, now: number): Promise<string[]> {
  const requesterOnly = db.select({ netid: companies.netid }).from(companies).where(eq(companies.coType, "CO"));
  const rows = await db
    .update(fleetEntries)
    .set({ active: false, updatedAt: now })
    .where(and(eq(fleetEntries.active, true), inArray(fleetEntries.netid, requesterOnly)))
    .returning({ slug: fleetEntries.slug });
  return rows.map((r) => r.slug);
}
