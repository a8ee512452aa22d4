import type { FxTable } from "./fx-table";

/** Where the imported FX table is kept (one per exchange), and each instance's copy of it. */
export interface FxRateStore {
  /**
   * The last imported table as this instance knows it (kept in step with the database: an import anywhere is seen
   * within 5 s); undefined before the first import.
   */
  imported(): FxTable | undefined;
  /** Reads the stored table again now (an import compares with the table in use, whoever imported it). */
  refresh(): void | Promise<void>;
  /** Replaces the stored table with `table` (imported at `at`, Unix seconds), whole, and tells every instance. */
  replace(table: FxTable, at: number): Promise<void>;
}
