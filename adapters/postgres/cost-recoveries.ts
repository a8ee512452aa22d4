import type { CostRecoveries } from "../../domain/trips/ports";
import type { CostRecoveryRecord } from "../../domain/trips/booking";
import { recoveryOf, recoverySql } from "../sql/recovery-sql";
import type { PgDb } from "./db";

const SQL = recoverySql((n) => `$${n}`);

/** Cost recoveries in PostgreSQL (docs/settlement.md#give-back-recovery): written with the give-back, read for statements. */
export class PgCostRecoveries implements CostRecoveries {
  constructor(private readonly db: PgDb) {}

  async between(a: string, b: string, from: number, to: number): Promise<CostRecoveryRecord[]> {
    return [...(await this.db.$client.unsafe(SQL.between, [a, b, from, to]))].map(recoveryOf);
  }

  async of(netid: string, from: number, to: number): Promise<CostRecoveryRecord[]> {
    return [...(await this.db.$client.unsafe(SQL.of, [netid, from, to]))].map(recoveryOf);
  }
}
