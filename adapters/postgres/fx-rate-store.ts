import { sql } from "drizzle-orm";
import { importStamp, type FxTable } from "../../domain/fx/fx-table";
import type { FxRateStore } from "../../domain/fx/ports";
import type { PgDb } from "./db";
import { listenWithPoll } from "./listen";
import { fxRates } from "./schema";

/** The channel an import notifies at its commit. */
export const FX_CHANNEL = "tripswitch_fx";

/**
 * The FX table in PostgreSQL, held in memory by each instance. An import replaces the rows and notifies FX_CHANNEL
 * in one transaction; every instance LISTENs and reads the table again at a notification, at each (re)subscription
 * and at a poll of the import stamp every `intervalMs` (the safety net): an import is in use everywhere within 5 s.
 */
export class PgFxRateStore implements FxRateStore {
  private table: FxTable | undefined;
  private stamp = -1;
  private running: Promise<void> | undefined;
  private readonly listener: { stop(): Promise<void> };

  constructor(
    private readonly db: PgDb,
    onError: (error: unknown) => void,
    intervalMs = 2000,
  ) {
    const check = () => this.refresh().catch(onError);
    this.listener = listenWithPoll(db, FX_CHANNEL, { notified: check, subscribed: check, poll: check }, onError, intervalMs);
  }

  imported(): FxTable | undefined {
    return this.table;
  }

  /** Reads the table again when its import stamp moved (checks never overlap). */
  refresh(): Promise<void> {
    this.running ??= (async () => {
      try {
        const [{ stamp }] = await this.db.select({ stamp: sql<string | null>`max(${fxRates.importedAt})` }).from(fxRates);
        const at = stamp === null ? 0 : Number(stamp);
        if (at === this.stamp) return;
        const rows = await this.db.select().from(fxRates);
        if (rows.length > 0) {
          const rates: Record<string, number> = {};
          for (const r of rows.sort((a, b) => (a.currency < b.currency ? -1 : 1))) rates[r.currency] = Number(r.rate);
          this.table = { date: rows[0].rateDate, rates };
        } else this.table = undefined;
        this.stamp = at;
      } finally {
        this.running = undefined;
      }
    })();
    return this.running;
  }

  async replace(table: FxTable, at: number): Promise<void> {
    let stamp = at;
    await this.db.transaction(async (tx) => {
      // The stamp moves at every import, two in one second too: the instances compare it to see a new table. The
      // lock orders concurrent imports (each reads the stamp the one before left).
      await tx.execute(sql`LOCK TABLE ${fxRates} IN EXCLUSIVE MODE`);
      const [{ last }] = await tx.select({ last: sql<string | null>`max(${fxRates.importedAt})` }).from(fxRates);
      stamp = importStamp(at, last === null ? null : Number(last));
      await tx.delete(fxRates);
      const rows = Object.entries(table.rates).map(([currency, rate]) => ({ currency, rate: String(rate), rateDate: table.date, importedAt: stamp }));
      await tx.insert(fxRates).values(rows);
      await tx.execute(sql`SELECT pg_notify(${FX_CHANNEL}, '')`);
    });
    this.table = table;
    this.stamp = stamp;
  }

  close(): Promise<void> {
    return this.listener.stop();
  }
}
