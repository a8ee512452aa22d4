import type { SQL } from "bun";
import type { CommitWatch, FleetSource, FleetStamp, IndexRow, RowRange } from "../../domain/fleet/source";
import type { PgDb } from "./db";

/**
 * The columns the index reads (with every entry's airports: quotes find the entries listing a pickup airport
 * through the index; the index interns the few distinct lists).
 */
const INDEX_COLUMNS = `slug, netid, type, name, description, image_url AS "imageUrl", max_passengers AS "maxPassengers",
  max_luggage AS "maxLuggage", lat, lon, airports,
  minimum_rate AS "minimumRate", hourly_rate AS "hourlyRate", currency`;

/** The change log keeps at most this many changes after its base (the trigger stops logging beyond). */
const FLEET_CHANGE_LOG_LIMIT = 50_000;
/** Once the stamp is this far past the log's base (or there is no base), the base moves up so logging goes on. */
const LOG_BASE_LAG = 40_000;
/** Changed entries re-read one by one at most per refresh; more, and the whole fleet is read again. */
const MAX_REREAD = 20_000;
/** Slugs a refresh reports at most; more, and it reports that anything may have changed (the index rebuilds). */
const MAX_REPORTED = 5000;
/** Slugs remembered (with the stamps they changed after) for `changesSince`. */
const MAX_REMEMBERED = 50_000;
/** Rows per query of a full read. */
const LOAD_BATCH = 20_000;

/** One snapshot of a whole transaction: the stamp, the log and the rows read in it belong to one moment. */
const SNAPSHOT = "isolation level repeatable read read only";

type Tx = SQL;
interface Generation {
  n: number;
  token: string;
  base: number;
  baseToken: string | null;
}

const same = (a: FleetStamp, b: FleetStamp) => a.n === b.n && a.token === b.token;

async function readGeneration(tx: Tx): Promise<Generation | undefined> {
  const [row] = await tx.unsafe(`SELECT n, token, log_base AS base, log_base_token AS "baseToken" FROM fleet_generation WHERE id = 1`);
  return row ? { n: Number(row.n), token: row.token, base: Number(row.base), baseToken: row.baseToken } : undefined;
}

/**
 * The distinct slugs changed after stamp `from` up to `to`, when the log holds every one of those changes and at
 * most `max` slugs changed; undefined otherwise. Every change adds at least one row with its own n: a missing n is
 * a change the log does not hold.
 */
async function loggedSlugs(tx: Tx, from: number, to: number, max: number): Promise<string[] | undefined> {
  if (to - from > FLEET_CHANGE_LOG_LIMIT) return undefined;
  const [{ c }] = await tx.unsafe("SELECT count(DISTINCT n) AS c FROM fleet_changes WHERE n > $1 AND n <= $2", [from, to]);
  if (Number(c) !== to - from) return undefined;
  const rows: Array<{ slug: string }> = await tx.unsafe("SELECT DISTINCT slug FROM fleet_changes WHERE n > $1 AND n <= $2 LIMIT $3", [from, to, max + 1]);
  return rows.length <= max ? rows.map((r) => r.slug) : undefined;
}

/**
 * The fleet as the search index reads it, on PostgreSQL: an in-memory mirror of the active entries (what the index
 * needs of them), loaded by `start()` and brought up to date by `refresh()` from the fleet's stamp and change log
 * (or read whole again when the log does not cover the gap). Every FleetSource read is synchronous and answered from
 * the mirror, as of the stamp it is at; the index awaits `refresh()` before reading rows, and the change feed
 * (watchFleetChangesPg) calls it on every committed fleet change of any instance.
 */
export class PgFleetSource implements FleetSource {
  readonly location = undefined;
  private rows = new Map<string, IndexRow>();
  private at: FleetStamp | undefined;
  /** The slugs changed after each stamp the mirror went through, oldest first: what `changesSince` answers from. */
  private steps: Array<{ from: FleetStamp; slugs: string[] }> = [];
  private remembered = 0;
  private queue: Promise<unknown> = Promise.resolve();
  /** A move of the log's base under way (see keepLogging). */
  private moving: Promise<void> | undefined;

  constructor(
    private readonly db: PgDb,
    private readonly options: { onError?: (error: unknown) => void } = {},
  ) {}

  /** Reads the whole active fleet into the mirror (a source is read only once started or refreshed). */
  async start(): Promise<void> {
    await this.refresh();
    await this.moving;
  }

  /** Brings the mirror up to the fleet's current stamp; one refresh at a time, in call order. */
  refresh(): Promise<readonly string[] | undefined> {
    const run = this.queue.then(() => this.catchUp());
    this.queue = run.catch(() => {});
    return run;
  }

  activeRows(range?: RowRange): Iterable<IndexRow> {
    if (!range || (range.after === undefined && range.upTo === undefined)) return this.rows.values();
    // Storage positions are the mirror's order, from 1.
    return [...this.rows.values()].slice(range.after ?? 0, range.upTo);
  }

  activeRowsBySlug(slugs: readonly string[]): IndexRow[] {
    const found: IndexRow[] = [];
    for (const slug of slugs) {
      const row = this.rows.get(slug);
      if (row) found.push(row);
    }
    return found;
  }

  rowSpan(): { first: number; last: number } | undefined {
    return this.rows.size > 0 ? { first: 1, last: this.rows.size } : undefined;
  }

  /** The stamp the mirror is at; undefined before it is loaded. */
  stamp(): FleetStamp | undefined {
    return this.at;
  }

  changesSince(saved: FleetStamp, maxSlugs: number): string[] | undefined {
    if (!this.at) return undefined;
    if (same(saved, this.at)) return [];
    let from = -1;
    for (let i = this.steps.length - 1; i >= 0 && from < 0; i--) if (same(this.steps[i].from, saved)) from = i;
    if (from < 0) return undefined;
    const slugs = new Set<string>();
    for (const step of this.steps.slice(from)) for (const slug of step.slugs) slugs.add(slug);
    return slugs.size <= maxSlugs ? [...slugs] : undefined;
  }

  /**
   * The index of `stamp` is saved: the change log's base moves up to it, never back (another instance may have
   * saved a newer one), and nothing is pruned (other instances may still need those changes; retention prunes).
   */
  markSaved(stamp: FleetStamp): void {
    this.moveLogBase(stamp).catch((error) => this.options.onError?.(error));
  }

  /** Every read is of the mirror, which changes only in `refresh`: any synchronous read sees one moment. */
  inOneSnapshot<T>(read: () => T, fixed?: () => void): T {
    fixed?.();
    return read();
  }

  watchCommits(): CommitWatch | undefined {
    return undefined;
  }

  private async catchUp(): Promise<readonly string[] | undefined> {
    const at = this.at;
    if (!at) return this.reload();
    const sql = this.db.$client;
    const now = await readGeneration(sql);
    if (!now) throw new Error("fleet_generation has no row: the database is not migrated");
    if (same(now, at)) return [];
    if (now.n <= at.n) return this.reload();
    const found = await sql.begin(SNAPSHOT, async (tx) => {
      const gen = (await readGeneration(tx))!;
      if (gen.n <= at.n) return gen.n === at.n && gen.token === at.token ? { gen, slugs: [] as string[], rows: [] as IndexRow[] } : undefined;
      const slugs = await loggedSlugs(tx, at.n, gen.n, MAX_REREAD);
      if (!slugs) return undefined;
      const rows: IndexRow[] = slugs.length > 0 ? await tx.unsafe(`SELECT ${INDEX_COLUMNS} FROM fleet_entries WHERE slug = ANY($1) AND active`, [slugs]) : [];
      return { gen, slugs, rows };
    });
    if (!found) return this.reload();
    for (const slug of found.slugs) this.rows.delete(slug);
    for (const row of found.rows) this.rows.set(row.slug, row);
    this.remember(at, found.slugs);
    this.at = { n: found.gen.n, token: found.gen.token };
    this.keepLogging(found.gen);
    return found.slugs.length <= MAX_REPORTED ? found.slugs : undefined;
  }

  /** Reads the whole active fleet again, on one snapshot; anything may have changed. */
  private async reload(): Promise<undefined> {
    const loaded = await this.db.$client.begin(SNAPSHOT, async (tx) => {
      const gen = await readGeneration(tx);
      if (!gen) throw new Error("fleet_generation has no row: the database is not migrated");
      const rows = new Map<string, IndexRow>();
      let after: string | undefined;
      for (;;) {
        const batch: IndexRow[] =
          after === undefined
            ? await tx.unsafe(`SELECT ${INDEX_COLUMNS} FROM fleet_entries WHERE active ORDER BY slug LIMIT $1`, [LOAD_BATCH])
            : await tx.unsafe(`SELECT ${INDEX_COLUMNS} FROM fleet_entries WHERE active AND slug > $1 ORDER BY slug LIMIT $2`, [after, LOAD_BATCH]);
        for (const row of batch) rows.set(row.slug, row);
        if (batch.length < LOAD_BATCH) break;
        after = batch[batch.length - 1].slug;
      }
      // What changed since the log's base (the stamp of the last saved index), for a saved index of that stamp.
      const sinceBase = gen.base >= 0 && gen.baseToken !== null ? await loggedSlugs(tx, gen.base, gen.n, MAX_REMEMBERED) : undefined;
      return { gen, rows, sinceBase };
    });
    const { gen, rows, sinceBase } = loaded;
    this.rows = rows;
    this.at = { n: gen.n, token: gen.token };
    this.steps = [];
    this.remembered = 0;
    if (sinceBase && gen.baseToken !== null) this.remember({ n: gen.base, token: gen.baseToken }, sinceBase);
    this.keepLogging(gen);
    return undefined;
  }

  private remember(from: FleetStamp, slugs: string[]): void {
    this.steps.push({ from, slugs });
    this.remembered += slugs.length;
    while (this.remembered > MAX_REMEMBERED && this.steps.length > 0) this.remembered -= this.steps.shift()!.slugs.length;
  }

  /**
   * The trigger logs changes only within FLEET_CHANGE_LOG_LIMIT of the log's base: with no saved index (no base),
   * or one long behind, the base moves up to the mirror's stamp so that changes stay logged and refreshes read
   * only the entries that changed. In the background: the update waits for fleet writes in progress (they hold
   * the stamp's row), and refreshes must not.
   */
  private keepLogging(gen: Generation): void {
    if ((gen.base >= 0 && gen.n - gen.base <= LOG_BASE_LAG) || this.moving) return;
    this.moving = this.moveLogBase(gen)
      .catch((error) => this.options.onError?.(error))
      .finally(() => {
        this.moving = undefined;
      });
  }

  private async moveLogBase(stamp: FleetStamp): Promise<void> {
    await this.db.$client.unsafe("UPDATE fleet_generation SET log_base = $1, log_base_token = $2 WHERE id = 1 AND log_base < $1", [stamp.n, stamp.token]);
  }
}
