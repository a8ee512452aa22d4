import type { CostRecoveries } from "../../domain/trips/ports";
import type { CostRecoveryRecord } from "../../domain/trips/booking";
import { recoveryOf, recoverySql } from "../sql/recovery-sql";
import type { Db } from "./db";

const SQL = recoverySql((n) => `?${n}`);

/** Cost recoveries in SQLite (docs/settlement.md#give-back-recovery): written with the give-back, read for statements. */
export class SqliteCostRecoveries implements CostRecoveries {
  constructor(private readonly db: Db) {}

  async between(a: string, b: string, from: number, to: number): Promise<CostRecoveryRecord[]> {
    return this.db.$client.query<Record<string, unknown>, [string, string, number, number]>(SQL.between).all(a, b, from, to).map(recoveryOf);
  }

  async of(netid: string, from: number, to: number): Promise<CostRecoveryRecord[]> {
    return this.db.$client.query<Record<string, unknown>, [string, number, number]>(SQL.of).all(netid, from, to).map(recoveryOf);
  }
}
