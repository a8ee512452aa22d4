import type { ChauffeurPosition, PositionLookup, PositionStore } from "../../domain/tracking/position";
import { WriteBehind } from "../sql/write-behind";
import type { PgDb } from "./db";

/** Positions kept per booking besides the last one (a minute at one a second); the SQLite store's bound. */
export const TRAIL_LENGTH = 60;
/** Positions are written in one statement at most this often (a crash loses at most this much). */
const FLUSH_MS = 250;
/** Positions held while the database refuses writes (down, full); the oldest go first beyond this. */
const MAX_PENDING = 200_000;
/** Prefetched last positions kept for `lastSync`; the map starts over beyond this. */
const MAX_PREFETCHED = 10_000;

interface Row {
  lat: number;
  lon: number;
  timestamp: string;
  receivedAt: number | string;
  chfId: string | null;
  chfName: string | null;
  phoneNo: string | null;
  griddId: string | null;
  etaMinutes?: number | null;
  etaAt?: string | null;
}

interface Pending {
  transactionId: string;
  position: ChauffeurPosition;
}

const toPosition = (r: Row): ChauffeurPosition => ({
  lat: r.lat,
  lon: r.lon,
  timestamp: r.timestamp,
  receivedAt: Number(r.receivedAt),
  ...(r.chfId !== null ? { chfId: r.chfId } : {}),
  ...(r.chfName !== null ? { chfName: r.chfName } : {}),
  ...(r.phoneNo !== null ? { phoneNo: r.phoneNo } : {}),
  ...(r.griddId !== null ? { griddID: r.griddId } : {}),
  ...(r.etaMinutes != null && r.etaAt != null ? { eta: { toPickupMinutes: r.etaMinutes, at: r.etaAt } } : {}),
});

/** The newest position per booking of `batch`. */
function newestOf(batch: readonly Pending[]): Map<string, ChauffeurPosition> {
  const newest = new Map<string, ChauffeurPosition>();
  for (const p of batch) newest.set(p.transactionId, p.position);
  return newest;
}

/**
 * Chauffeur positions on PostgreSQL: the last one per booking and a bounded trail, written every 250 ms in one
 * statement per batch. The database numbers the positions (`seq`, the next trail slot), so pushes for one booking
 * reaching different instances share one trail. Reads ask the database, except for this instance's positions not
 * written yet, which `last`, `trail` and `lastSync` see at once. Nothing else is cached: another instance's
 * positions would make it stale.
 */
export class PgPositionStore implements PositionStore, PositionLookup {
  /** Received, not yet handed to a write. */
  private readonly pending = new WriteBehind<Pending>(() => void this.flush(), FLUSH_MS, MAX_PENDING);
  private pendingLast = new Map<string, ChauffeurPosition>();
  /** Being written (at most one write at a time). */
  private writing = new Map<string, ChauffeurPosition>();
  private prefetched = new Map<string, ChauffeurPosition | undefined>();
  /** The write in progress, if any: flushes and trail reads queue behind it. */
  private busy: Promise<void> = Promise.resolve();

  constructor(
    private readonly db: PgDb,
    private readonly onError: (error: unknown) => void = () => {},
  ) {}

  async last(transactionId: string): Promise<ChauffeurPosition | undefined> {
    const unwritten = this.unwritten(transactionId);
    if (unwritten) return unwritten;
    const [row]: Row[] = await this.db.$client`
      SELECT lat, lon, timestamp, received_at AS "receivedAt", chf_id AS "chfId",
        chf_name AS "chfName", phone_no AS "phoneNo", gridd_id AS "griddId", eta_minutes AS "etaMinutes", eta_at AS "etaAt"
      FROM chauffeur_positions WHERE transaction_id = ${transactionId}`;
    // A position saved while the read was under way is newer than the row.
    return this.unwritten(transactionId) ?? (row ? toPosition(row) : undefined);
  }

  /** The booking's recent positions, oldest first, at most TRAIL_LENGTH (this instance's unwritten ones included). */
  trail(transactionId: string): Promise<ChauffeurPosition[]> {
    // Written first, then read while no other write runs: the trail has each position once.
    return this.exclusive(async () => {
      await this.write();
      const rows: Row[] = await this.db.$client`
        SELECT lat, lon, timestamp, received_at AS "receivedAt", NULL AS "chfId", NULL AS "chfName", NULL AS "phoneNo", NULL AS "griddId"
        FROM position_trail WHERE transaction_id = ${transactionId} ORDER BY seq`;
      // What the write could not store (the database refused it) is still held: it comes after the stored trail.
      const held = this.pending.rows
        .filter((p) => p.transactionId === transactionId)
        .map(({ position: { lat, lon, timestamp, receivedAt } }) => ({ lat, lon, timestamp, receivedAt }));
      return rows.map(toPosition).concat(held).slice(-TRAIL_LENGTH);
    });
  }

  save(transactionId: string, position: ChauffeurPosition): void {
    this.pending.add({ transactionId, position });
    this.pendingLast.set(transactionId, position);
  }

  /** Reads the last positions of `transactionIds` for `lastSync` (one query), right before a change is announced. */
  async prefetch(transactionIds: readonly string[]): Promise<void> {
    if (transactionIds.length === 0) return;
    const rows: Array<Row & { transactionId: string }> = await this.db.$client`
      SELECT transaction_id AS "transactionId", lat, lon, timestamp, received_at AS "receivedAt", chf_id AS "chfId",
        chf_name AS "chfName", phone_no AS "phoneNo", gridd_id AS "griddId", eta_minutes AS "etaMinutes", eta_at AS "etaAt"
      FROM chauffeur_positions WHERE transaction_id = ANY(${[...transactionIds]}::text[])`;
    if (this.prefetched.size + transactionIds.length > MAX_PREFETCHED) this.prefetched.clear();
    for (const id of transactionIds) this.prefetched.set(id, undefined);
    for (const row of rows) this.prefetched.set(row.transactionId, toPosition(row));
  }

  /** The last position as of the latest `prefetch` of the booking, or this instance's newer unwritten one. */
  lastSync(transactionId: string): ChauffeurPosition | undefined {
    return this.unwritten(transactionId) ?? this.prefetched.get(transactionId);
  }

  /** Writes the positions received so far (after any write under way). Never rejects: failures go to `onError`. */
  flush(): Promise<void> {
    return this.exclusive(() => this.write());
  }

  /** Writes what is pending; for an orderly stop. */
  async close(): Promise<void> {
    await this.flush();
    this.pending.cancel();
  }

  private unwritten(transactionId: string): ChauffeurPosition | undefined {
    return this.pendingLast.get(transactionId) ?? this.writing.get(transactionId);
  }

  private exclusive<T>(run: () => Promise<T>): Promise<T> {
    const result = this.busy.then(run);
    this.busy = result.then(
      () => {},
      () => {},
    );
    return result;
  }

  /** One write of everything pending; only ever called through `exclusive`. */
  private async write(): Promise<void> {
    const batch = this.pending.take();
    if (batch.length === 0) return;
    this.writing = this.pendingLast;
    this.pendingLast = new Map();
    try {
      await this.insert(batch);
    } catch (error) {
      // Kept for the next flush (bounded); reads still see the newest positions meanwhile.
      this.pending.putBack(batch, FLUSH_MS * 4);
      this.pendingLast = newestOf(this.pending.rows);
      this.onError(error);
    } finally {
      this.writing = new Map();
    }
  }

  /**
   * One statement for the whole batch: each booking's last position is upserted with its `seq` moved on by its
   * positions in the batch, and those positions (the newest TRAIL_LENGTH) take the trail slots that follow,
   * numbered from the `seq` the row had — whichever instance wrote it. The row locks (taken in booking order, so
   * two writers never wait on each other in a cycle) order concurrent writers.
   */
  private async insert(batch: readonly Pending[]): Promise<void> {
    const ordinal = new Map<string, number>();
    const columns = {
      id: [] as string[],
      ord: [] as number[],
      lat: [] as number[],
      lon: [] as number[],
      timestamp: [] as string[],
      receivedAt: [] as number[],
      chfId: [] as Array<string | null>,
      chfName: [] as Array<string | null>,
      phoneNo: [] as Array<string | null>,
      griddId: [] as Array<string | null>,
      etaMinutes: [] as Array<number | null>,
      etaAt: [] as Array<string | null>,
    };
    for (const { transactionId, position: p } of batch) {
      const ord = (ordinal.get(transactionId) ?? 0) + 1;
      ordinal.set(transactionId, ord);
      columns.id.push(transactionId);
      columns.ord.push(ord);
      columns.lat.push(p.lat);
      columns.lon.push(p.lon);
      columns.timestamp.push(p.timestamp);
      columns.receivedAt.push(p.receivedAt);
      columns.chfId.push(p.chfId ?? null);
      columns.chfName.push(p.chfName ?? null);
      columns.phoneNo.push(p.phoneNo ?? null);
      columns.griddId.push(p.griddID ?? null);
      columns.etaMinutes.push(p.eta?.toPickupMinutes ?? null);
      columns.etaAt.push(p.eta?.at ?? null);
    }
    const c = columns;
    await this.db.$client`
      WITH input AS (
        SELECT * FROM unnest(${c.id}::text[], ${c.ord}::int[], ${c.lat}::float8[], ${c.lon}::float8[], ${c.timestamp}::text[],
          ${c.receivedAt}::float8[], ${c.chfId}::text[], ${c.chfName}::text[], ${c.phoneNo}::text[], ${c.griddId}::text[],
          ${c.etaMinutes}::int[], ${c.etaAt}::text[])
          AS t(transaction_id, ord, lat, lon, timestamp, received_at, chf_id, chf_name, phone_no, gridd_id, eta_minutes, eta_at)
      ),
      counts AS (SELECT transaction_id, max(ord) AS n FROM input GROUP BY transaction_id),
      lasts AS (
        INSERT INTO chauffeur_positions AS p (transaction_id, lat, lon, timestamp, received_at, seq, chf_id, chf_name, phone_no, gridd_id,
          eta_minutes, eta_at)
        SELECT i.transaction_id, i.lat, i.lon, i.timestamp, i.received_at, c.n, i.chf_id, i.chf_name, i.phone_no, i.gridd_id,
          i.eta_minutes, i.eta_at
        FROM input i JOIN counts c ON c.transaction_id = i.transaction_id AND c.n = i.ord
        ORDER BY i.transaction_id
        ON CONFLICT (transaction_id) DO UPDATE SET lat = excluded.lat, lon = excluded.lon, timestamp = excluded.timestamp,
          received_at = excluded.received_at, seq = p.seq + excluded.seq, chf_id = excluded.chf_id, chf_name = excluded.chf_name,
          phone_no = excluded.phone_no, gridd_id = excluded.gridd_id, eta_minutes = excluded.eta_minutes, eta_at = excluded.eta_at
        RETURNING transaction_id, seq
      )
      INSERT INTO position_trail AS t (transaction_id, slot, seq, lat, lon, timestamp, received_at)
      SELECT i.transaction_id, ((l.seq - c.n + i.ord) % ${TRAIL_LENGTH})::int, l.seq - c.n + i.ord, i.lat, i.lon, i.timestamp, i.received_at
      FROM input i JOIN counts c ON c.transaction_id = i.transaction_id JOIN lasts l ON l.transaction_id = i.transaction_id
      WHERE i.ord > c.n - ${TRAIL_LENGTH}
      ON CONFLICT (transaction_id, slot) DO UPDATE SET seq = excluded.seq, lat = excluded.lat, lon = excluded.lon,
        timestamp = excluded.timestamp, received_at = excluded.received_at`;
  }
}
