import { ForbiddenError } from "../errors";

/**
 * Whether a company offers rides (docs/security.md#requester-only-companies): an IO operator does; a CO company
 * only books them, so it has no vehicles or rate card, is never offered and has no provider record.
 */
export function offersRides(company: { coType: string }): boolean {
  return company.coType.toUpperCase() !== "CO";
}

/** 403 NOT_AN_OPERATOR: a requester-only (CO) company asked to offer something; `refusal` says what it may not do. */
export function notAnOperator(refusal: string): ForbiddenError {
  return new ForbiddenError(
    `Your company is registered to book rides (coType CO), not to offer them: ${refusal}. ` +
      "Register an operator company (coType IO) to offer rides",
    "NOT_AN_OPERATOR",
  );
}
