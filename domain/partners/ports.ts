import type { Partnership, VehicleTypeMap } from "./partnership";

export interface PartnershipRepository {
  /** The partnership of two companies (canonical netids), whichever side asked. */
  find(a: string, b: string): Promise<Partnership | undefined>;
  /** Every partnership the company is part of, oldest first. */
  listFor(netid: string): Promise<Partnership[]>;
  /** Records a request from `requestedBy` to `other`; ConflictError when the pair already has a partnership. */
  create(requestedBy: string, other: string, at: number): Promise<void>;
  /** Makes a pending partnership active. */
  activate(a: string, b: string, at: number): Promise<void>;
  /** Ends a partnership and forgets both sides' vehicle-type maps for it; false when there was none. */
  remove(a: string, b: string): Promise<boolean>;
  /** The map `provider` set for trips from `requester`, empty when none. */
  vehicleTypes(provider: string, requester: string): Promise<VehicleTypeMap>;
  /** Replaces the map `provider` set for trips from `requester`. */
  setVehicleTypes(provider: string, requester: string, map: VehicleTypeMap): Promise<void>;
}

/**
 * The vehicle-type map of two active partners, read synchronously while a booking change's messages are built
 * (a store over the network answers from what it read just before the change).
 */
export interface ActiveVehicleTypes {
  /** The map `provider` set for `requester`, empty unless the two are active partners. */
  activeVehicleTypesSync(provider: string, requester: string): VehicleTypeMap;
}
