import type { Database, Statement } from "bun:sqlite";
import type { ChauffeurPosition, PositionLookup, PositionStore } from "../../domain/tracking/position";
import { WriteBehind } from "../sql/write-behind";
import type { Db } from "./db";

/** Positions kept per booking besides the last one (a minute at one a second). */
export const TRAIL_LENGTH = 60;
/** Positions are written in one transaction at most this often (a crash loses at most this much). */
const FLUSH_MS = 250;
/** A booking not heard of for this long leaves memory (its last position stays in the table). */
const IDLE_MS = 10 * 60_000;
/** Positions held while the database refuses writes (busy, full); the oldest go first beyond this. */
const MAX_PENDING = 200_000;

interface Row {
  lat: number;
  lon: number;
  timestamp: string;
  receivedAt: number;
  seq: number;
  chfId: string | null;
  chfName: string | null;
  phoneNo: string | null;
  griddId: string | null;
  etaMinutes: number | null;
  etaAt: string | null;
}

interface Entry {
  position: ChauffeurPosition;
  /** How many positions the booking has had. */
  seq: number;
}

const toPosition = (r: Row): ChauffeurPosition => ({
  lat: r.lat,
  lon: r.lon,
  timestamp: r.timestamp,
  receivedAt: r.receivedAt,
  ...(r.chfId !== null ? { chfId: r.chfId } : {}),
  ...(r.chfName !== null ? { chfName: r.chfName } : {}),
  ...(r.phoneNo !== null ? { phoneNo: r.phoneNo } : {}),
  ...(r.griddId !== null ? { griddID: r.griddId } : {}),
  ...(r.etaMinutes !== null && r.etaAt !== null ? { eta: { toPickupMinutes: r.etaMinutes, at: r.etaAt } } : {}),
});

/**
 * Chauffeur positions: the last one per booking answered from memory, and written with a bounded trail to SQLite
 * in one transaction every 250 ms — so ten thousand bookings pushing once a second cost four commits a second,
 * not ten thousand. A position is superseded within a second anyway; a crash loses at most the last 250 ms.
 */
export class SqlitePositionStore implements PositionStore, PositionLookup {
  private readonly recent = new Map<string, Entry>();
  private readonly pending = new WriteBehind<{ transactionId: string; seq: number; position: ChauffeurPosition }>(() => this.flush(), FLUSH_MS, MAX_PENDING);
  private readonly sqlite: Database;
  private readonly lastRow: Statement<Row, [string]>;
  private readonly trailRows: Statement<Row, [string]>;
  private readonly upsertLast: Statement;
  private readonly upsertTrail: Statement;

  constructor(
    db: Db,
    private readonly onError: (error: unknown) => void = () => {},
  ) {
    this.sqlite = db.$client;
    const columns = `lat, lon, timestamp, received_at AS receivedAt, seq`;
    this.lastRow = this.sqlite.prepare(
      `SELECT ${columns}, chf_id AS chfId, chf_name AS chfName, phone_no AS phoneNo, gridd_id AS griddId, eta_minutes AS etaMinutes,
         eta_at AS etaAt FROM chauffeur_positions WHERE transaction_id = ?`,
    );
    this.trailRows = this.sqlite.prepare(
      `SELECT ${columns}, NULL AS chfId, NULL AS chfName, NULL AS phoneNo, NULL AS griddId, NULL AS etaMinutes, NULL AS etaAt
       FROM position_trail WHERE transaction_id = ? ORDER BY seq`,
    );
    this.upsertLast = this.sqlite.prepare(
      `INSERT INTO chauffeur_positions (transaction_id, lat, lon, timestamp, received_at, seq, chf_id, chf_name, phone_no, gridd_id,
         eta_minutes, eta_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (transaction_id) DO UPDATE SET lat = excluded.lat, lon = excluded.lon, timestamp = excluded.timestamp,
         received_at = excluded.received_at, seq = excluded.seq, chf_id = excluded.chf_id, chf_name = excluded.chf_name,
         phone_no = excluded.phone_no, gridd_id = excluded.gridd_id, eta_minutes = excluded.eta_minutes, eta_at = excluded.eta_at`,
    );
    this.upsertTrail = this.sqlite.prepare(
      `INSERT INTO position_trail (transaction_id, slot, seq, lat, lon, timestamp, received_at) VALUES (?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (transaction_id, slot) DO UPDATE SET seq = excluded.seq, lat = excluded.lat, lon = excluded.lon,
         timestamp = excluded.timestamp, received_at = excluded.received_at`,
    );
  }

  async last(transactionId: string): Promise<ChauffeurPosition | undefined> {
    return this.lastSync(transactionId);
  }

  lastSync(transactionId: string): ChauffeurPosition | undefined {
    return this.entry(transactionId)?.position;
  }

  async trail(transactionId: string): Promise<ChauffeurPosition[]> {
    this.flush();
    return this.trailRows.all(transactionId).map(toPosition);
  }

  save(transactionId: string, position: ChauffeurPosition): void {
    const entry = this.entry(transactionId);
    const seq = (entry?.seq ?? 0) + 1;
    this.recent.set(transactionId, { position, seq });
    this.pending.add({ transactionId, seq, position });
  }

  /** Writes the positions received since the last flush, and lets bookings not heard of lately leave memory. */
  flush(): void {
    const batch = this.pending.take();
    if (batch.length === 0) return;
    const latest = new Map<string, { seq: number; position: ChauffeurPosition }>();
    for (const p of batch) latest.set(p.transactionId, p);
    try {
      this.sqlite.transaction(() => {
        for (const { transactionId, seq, position: p } of batch)
          this.upsertTrail.run(transactionId, seq % TRAIL_LENGTH, seq, p.lat, p.lon, p.timestamp, p.receivedAt);
        for (const [transactionId, { seq, position: p }] of latest)
          this.upsertLast.run(
            transactionId,
            p.lat,
            p.lon,
            p.timestamp,
            p.receivedAt,
            seq,
            p.chfId ?? null,
            p.chfName ?? null,
            p.phoneNo ?? null,
            p.griddID ?? null,
            p.eta?.toPickupMinutes ?? null,
            p.eta?.at ?? null,
          );
      })();
    } catch (error) {
      // Kept for the next flush (bounded); memory still answers with the newest positions meanwhile.
      this.pending.putBack(batch, FLUSH_MS * 4);
      this.onError(error);
      return;
    }
    const idleBefore = Date.now() - IDLE_MS;
    for (const [id, entry] of this.recent) if (entry.position.receivedAt < idleBefore) this.recent.delete(id);
  }

  /** Writes what is pending; for an orderly stop. */
  close(): void {
    this.flush();
  }

  private entry(transactionId: string): Entry | undefined {
    const known = this.recent.get(transactionId);
    if (known) return known;
    const row = this.lastRow.get(transactionId);
    if (!row) return undefined;
    const entry = { position: toPosition(row), seq: row.seq };
    this.recent.set(transactionId, entry);
    return entry;
  }
}
