/**
 * What a booking carries for settling it (docs/settlement.md): the final fare's state, the requester's give-back
 * recovery tiers and a recovery owed. A leaf: the booking, the rules and the stores all read these shapes.
 */

/** The fare's state (docs/settlement.md#the-final-fare): open until `until` (Unix seconds), final once the watch said so. */
export interface FinalFare {
  until: number;
  final?: true;
}

/** One give-back recovery tier: a give-back until `beforeMinutes` before the pickup costs the provider `percent` of the fare. */
export interface RecoveryTier {
  beforeMinutes: number;
  percent: number;
}

/** A COST_RECOVERY (docs/settlement.md#give-back-recovery): owed by the provider that gave a booking back to its requester. */
export interface CostRecovery {
  kind: "COST_RECOVERY";
  owedBy: string;
  owedTo: string;
  /** The tier's percent of `fare` (the quoted fare: never lines added later). */
  percent: number;
  /** `percent` of `fare`, rounded half up to the currency's minor unit, as every amount is written ("75.00"). */
  amount: string;
  currency: string | null;
  fare: string;
  /** When the provider gave the booking back (Unix seconds). */
  at: number;
  /** Why nothing is owed after all (FLIGHT_MOVED_PICKUP), when waived. */
  waived?: string;
}

/** A cost recovery as stored for statements: by requester, provider and pickup instant, in whole minor units. */
export interface CostRecoveryRecord {
  transactionId: string;
  requesterId: string;
  providerId: string;
  amountMinor: number;
  currency: string;
  percent: number;
  /** The booking's pickup (Unix seconds): a statement's period is the pickup's UTC month. */
  pickupDate: number;
  recordedAt: number;
  waived: boolean;
}
