import type { Booking } from "./booking";
import { currencyOfFees } from "./booking-amounts";
import { amountParts, roundedToMinorUnit } from "../money";
import { DEFAULT_MINOR_UNIT, fareMinorUnit } from "../currency";
import { CANCELLATION_FEE_CODE } from "./terms";

/**
 * What a booking leaves its requester owing its provider, for statements (docs/settlement.md#statements-and-settlement):
 * a CLOSE'd booking its fare so far (`totalAmount`), a CANCEL'd one the fee its late cancel added, nothing otherwise
 * (nor a booking without an amount, nor a company's booking with itself). Stored beside the booking so a month is
 * summed from columns: whole minor units of `currency` (null when the fee lines name none).
 */
export function settledAmount(b: Pick<Booking, "status" | "totalAmount" | "trip" | "requesterId" | "providerId" | "finalFare">): {
  settleUnits: number | null;
  currency: string | null;
  fareFinalAt: number | null;
} {
  // When the fare can no longer change (docs/settlement.md#the-final-fare): the end of its window.
  const fareFinalAt = b.finalFare?.until ?? null;
  const currency = currencyOfFees(b.trip.fees)?.toUpperCase() ?? null;
  const owed =
    b.requesterId.toLowerCase() !== b.providerId.toLowerCase() &&
    (b.status === "CLOSE" || (b.status === "CANCEL" && b.trip.fees.some((f) => f.type === "CANCELLATION" && f.code === CANCELLATION_FEE_CODE)));
  const parts = owed && b.totalAmount ? amountParts(b.totalAmount) : undefined;
  if (!parts) return { settleUnits: null, currency, fareFinalAt };
  const digits = (currency ? fareMinorUnit(currency) : undefined) ?? DEFAULT_MINOR_UNIT;
  const units = Number(roundedToMinorUnit(parts, digits).replace(".", ""));
  return { settleUnits: Number.isSafeInteger(units) ? units : null, currency, fareFinalAt };
}
