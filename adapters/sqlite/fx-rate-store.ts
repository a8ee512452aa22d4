import { sql } from "drizzle-orm";
import { importStamp, type FxTable } from "../../domain/fx/fx-table";
import type { FxRateStore } from "../../domain/fx/ports";
import type { Db } from "./db";
import { fxRates } from "./schema";

/**
 * The FX table in SQLite, held in memory. An import by this process updates the copy at once; one by another
 * process on the same file (the CLI `fx import` beside a running service) is seen by a check of the import stamp
 * every `intervalMs` (a one-row read).
 */
export class SqliteFxRateStore implements FxRateStore {
  private table: FxTable | undefined;
  private stamp = -1;
  private readonly timer: ReturnType<typeof setInterval>;

  constructor(
    private readonly db: Db,
    intervalMs = 1000,
  ) {
    this.refresh();
    this.timer = setInterval(() => this.refresh(), intervalMs);
    (this.timer as unknown as { unref?: () => void }).unref?.();
  }

  imported(): FxTable | undefined {
    return this.table;
  }

  /** Reads the table again when its import stamp moved. */
  refresh(): void {
    try {
      const [{ stamp }] = this.db.select({ stamp: sql<number | null>`max(${fxRates.importedAt})` }).from(fxRates).all();
      if ((stamp ?? 0) === this.stamp) return;
      const rows = this.db.select().from(fxRates).all();
      this.table = tableOf(rows);
      this.stamp = stamp ?? 0;
    } catch {
      // A closed or busy database: the copy held stays in use; the next check tries again.
    }
  }

  async replace(table: FxTable, at: number): Promise<void> {
    let stamp = at;
    this.db.transaction((tx) => {
      // The stamp moves at every import, two in one second too: other processes compare it to see a new table.
      const [{ last }] = tx.select({ last: sql<number | null>`max(${fxRates.importedAt})` }).from(fxRates).all();
      stamp = importStamp(at, last);
      tx.delete(fxRates).run();
      tx.insert(fxRates)
        .values(Object.entries(table.rates).map(([currency, rate]) => ({ currency, rate: String(rate), rateDate: table.date, importedAt: stamp })))
        .run();
    });
    this.table = table;
    this.stamp = stamp;
  }

  close(): void {
    clearInterval(this.timer);
  }
}

/** The table stored rows hold; undefined without rows. */
export function tableOf(rows: ReadonlyArray<{ currency: string; rate: string; rateDate: string }>): FxTable | undefined {
  if (rows.length === 0) return undefined;
  const rates: Record<string, number> = {};
  for (const r of [...rows].sort((a, b) => (a.currency < b.currency ? -1 : 1))) rates[r.currency] = Number(r.rate);
  return { date: rows[0].rateDate, rates };
}
