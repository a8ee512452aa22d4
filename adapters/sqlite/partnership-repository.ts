import { and, asc, eq, or } from "drizzle-orm";
import { ConflictError } from "../../domain/errors";
import type { Partnership, VehicleTypeMap } from "../../domain/partners/partnership";
import type { ActiveVehicleTypes, PartnershipRepository } from "../../domain/partners/ports";
import { bothWays, oneWay, partnershipPair as pair, toPartnership, vehicleTypeRows } from "../sql/partnership-rows";
import type { Db } from "./db";
import { partnerships, partnerVehicleTypes } from "./schema";

export class SqlitePartnershipRepository implements PartnershipRepository, ActiveVehicleTypes {
  // Read inside booking changes that deliver a trip with a preferred vehicle type: prepared once.
  private readonly activeMapStatement;

  constructor(private readonly db: Db) {
    this.activeMapStatement = db.$client.query<{ requesterType: string; providerType: string }, [string, string, string, string]>(`
      SELECT v.requester_type AS requesterType, v.provider_type AS providerType
      FROM partner_vehicle_types v
      JOIN partnerships p ON p.company_a = ? AND p.company_b = ? AND p.status = 'active'
      WHERE v.provider_netid = ? AND v.requester_netid = ?`);
  }

  async find(a: string, b: string): Promise<Partnership | undefined> {
    const [x, y] = pair(a, b);
    const row = this.db
      .select()
      .from(partnerships)
      .where(and(eq(partnerships.companyA, x), eq(partnerships.companyB, y)))
      .get();
    return row ? toPartnership(row) : undefined;
  }

  async listFor(netid: string): Promise<Partnership[]> {
    return this.db
      .select()
      .from(partnerships)
      .where(or(eq(partnerships.companyA, netid), eq(partnerships.companyB, netid)))
      .orderBy(asc(partnerships.createdAt), asc(partnerships.companyA), asc(partnerships.companyB))
      .all()
      .map(toPartnership);
  }

  async create(requestedBy: string, other: string, at: number): Promise<void> {
    const [companyA, companyB] = pair(requestedBy, other);
    try {
      this.db.insert(partnerships).values({ companyA, companyB, requestedBy, status: "pending", createdAt: at }).run();
    } catch (error) {
      // The other side asked at the same moment: the pair has its row already.
      if (error instanceof Error && error.message.includes("UNIQUE"))
        throw new ConflictError(`A partnership with ${other} exists already`, "PARTNERSHIP_EXISTS");
      throw error;
    }
  }

  async activate(a: string, b: string, at: number): Promise<void> {
    const [x, y] = pair(a, b);
    this.db
      .update(partnerships)
      .set({ status: "active", acceptedAt: at })
      .where(and(eq(partnerships.companyA, x), eq(partnerships.companyB, y), eq(partnerships.status, "pending")))
      .run();
  }

  async remove(a: string, b: string): Promise<boolean> {
    const [x, y] = pair(a, b);
    return this.db.transaction((tx) => {
      const gone = tx
        .delete(partnerships)
        .where(and(eq(partnerships.companyA, x), eq(partnerships.companyB, y)))
        .run() as unknown as { changes: number };
      tx.delete(partnerVehicleTypes)
        .where(bothWays(partnerVehicleTypes, a, b))
        .run();
      return gone.changes > 0;
    });
  }

  async vehicleTypes(provider: string, requester: string): Promise<VehicleTypeMap> {
    const rows = this.db
      .select({ requesterType: partnerVehicleTypes.requesterType, providerType: partnerVehicleTypes.providerType })
      .from(partnerVehicleTypes)
      .where(oneWay(partnerVehicleTypes, provider, requester))
      .orderBy(asc(partnerVehicleTypes.requesterType))
      .all();
    return Object.fromEntries(rows.map((r) => [r.requesterType, r.providerType]));
  }

  /** The map `provider` set for `requester`, only while the two are active partners; for use inside a synchronous transaction. */
  activeVehicleTypesSync(provider: string, requester: string): VehicleTypeMap {
    const [x, y] = pair(provider, requester);
    const rows = this.activeMapStatement.all(x, y, provider, requester);
    return Object.fromEntries(rows.map((r) => [r.requesterType, r.providerType]));
  }

  async setVehicleTypes(provider: string, requester: string, map: VehicleTypeMap): Promise<void> {
    const where = oneWay(partnerVehicleTypes, provider, requester);
    const rows = vehicleTypeRows(provider, requester, map);
    this.db.transaction((tx) => {
      tx.delete(partnerVehicleTypes).where(where).run();
      if (rows.length > 0) tx.insert(partnerVehicleTypes).values(rows).run();
    });
  }
}
