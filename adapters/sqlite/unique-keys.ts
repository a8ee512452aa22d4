/** A unique key of a booking already taken (by a writer that committed after the change was decided). */
export const TAKEN = /UNIQUE constraint failed: bookings\./;

/**
 * The provider's reservation number held by another live booking (index bookings_provider_res_no_live): not a
 * conflict to decide again but the change's answer (409 PROVIDER_RES_NO_IN_USE).
 */
export const PROVIDER_RES_NO_TAKEN = /UNIQUE constraint failed: bookings\.provider_id, bookings\.provider_res_no/;
