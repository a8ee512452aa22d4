/**
 * What a booking keeps of its assignment deadline's warning (docs/terms.md#the-assignment-deadline): a leaf the
 * booking, its events and the rule all read. Unix seconds.
 */
export interface UnassignedWarning {
  /** When the warning was sent. */
  at: number;
  /** The deadline that passed without a chauffeur (terms.assignBy then). */
  assignBy: number;
  /** The pickup it was sent for. */
  pickupAt: number;
}
