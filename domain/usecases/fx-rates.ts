import { ValidationError } from "../errors";
import type { Clock } from "../ports";
import { dayOf, FX_BASE, fxTableDoubts, fxTableOf, fxTableProblems, type FxTable } from "../fx/fx-table";
import type { FxRateStore } from "../fx/ports";

/**
 * The exchange's FX table: the ECB's daily euro reference rates as last imported (CLI `fx import`), or, until the
 * first import, the dated table the service ships with. Read by GET /api/fx and by the network quote's conversion.
 */
export interface FxDeps {
  store: FxRateStore;
  /** The reference table shipped with the service (its date says how old it is). */
  shipped: FxTable;
  clock: Clock;
}

/** A table as read from a file, before it is checked: its day and its (currency, rate) rows as written. */
export interface FxFileRows {
  date: string;
  rates: Array<[string, string]>;
}

/** The table in use: the last import, else the shipped one. */
export function fxTableInUse(deps: Pick<FxDeps, "store" | "shipped">): FxTable {
  return deps.store.imported() ?? deps.shipped;
}

/** GET /api/fx: the table in use, EUR-based. */
export function fxRatesView(deps: Pick<FxDeps, "store" | "shipped">): { base: typeof FX_BASE; date: string; rates: Record<string, number> } {
  const table = fxTableInUse(deps);
  return { base: FX_BASE, date: table.date, rates: { ...table.rates } };
}

/**
 * Import a table read from a file: checked whole (FX_FILE_INVALID naming each problem, nothing saved); then, unless
 * `force`, compared with the table in use as stored now (FX_FILE_DOUBTFUL: older, or a rate out of range); then it
 * replaces the stored one.
 */
export async function importFxRates(deps: FxDeps, rows: FxFileRows, options: { force?: boolean } = {}): Promise<FxTable> {
  const now = deps.clock.now();
  const errors = fxTableProblems(rows, dayOf(now + 86_400));
  if (errors.length > 0) throw new ValidationError(errors, undefined, "FX_FILE_INVALID");
  if (!options.force) {
    await deps.store.refresh();
    const doubts = fxTableDoubts(rows, fxTableInUse(deps));
    if (doubts.length > 0) throw new ValidationError(doubts, undefined, "FX_FILE_DOUBTFUL");
  }
  const table = fxTableOf(rows);
  await deps.store.replace(table, now);
  return table;
}
