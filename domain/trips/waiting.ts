import { amountParts, roundedToMinorUnit } from "../money";
import type { Booking, Fee } from "./booking";
import { currencyOfFees, type MinorUnits } from "./booking-amounts";
import { sumOfLines } from "./fare-lines";

/**
 * Waiting (docs/flights.md#waiting-and-no-show), pure: the minutes a chauffeur waited, from the later of its arrival
 * (its positions; else its ON_LOCATION) and the pickup, to PASSENGER_ON_BOARD; beyond the free minutes, one WAITING
 * line (type CHARGE) per started period of the booking's waiting rate, with the evidence.
 */

export const WAITING_CODE = "WAITING";
/** At most this many WAITING lines (a day of 15-minute periods): a booking stays within its size. */
export const MAX_WAITING_LINES = 96;

const seconds = (iso: string | undefined) => (iso === undefined ? undefined : Math.floor(Date.parse(iso) / 1000));

/** What the WAITING lines rest on: when the wait began being counted from, when it ended, the whole minutes between. */
export interface WaitingEvidence {
  arrivedAt: string;
  onBoardAt: string;
  waitedMinutes: number;
}

/**
 * The WAITING lines a booking earns once its passenger is on board (`clock.onBoardAt` set), in its currency's minor
 * unit; none without a waiting rate, without an arrival or ON_LOCATION, or within the free minutes.
 */
export function waitingLines(b: Pick<Booking, "clock" | "pickupDate" | "terms" | "trip">, units: MinorUnits): Fee[] {
  const rate = b.terms?.waitingRate;
  const clock = b.clock;
  const arrivedAt = clock?.arrivedAt ?? clock?.onLocationAt;
  const from = seconds(arrivedAt);
  const onBoard = seconds(clock?.onBoardAt);
  if (!rate || from === undefined || onBoard === undefined || !arrivedAt || !clock?.onBoardAt) return [];
  const waitedMinutes = Math.max(0, Math.floor((onBoard - Math.max(from, b.pickupDate)) / 60));
  const beyond = waitedMinutes - (b.terms?.freeWaitingMinutes ?? 0);
  if (beyond <= 0) return [];
  const periods = Math.min(MAX_WAITING_LINES, Math.ceil(beyond / rate.perMinutes));
  const currency = currencyOfFees(b.trip.fees);
  const digits = (currency ? units.minorUnit(currency) : undefined) ?? 2;
  const parts = amountParts(rate.amount);
  if (!parts) return [];
  const fee = roundedToMinorUnit(parts, digits);
  const evidence: WaitingEvidence = { arrivedAt, onBoardAt: clock.onBoardAt, waitedMinutes };
  return Array.from({ length: periods }, (_, i) => ({
    type: "CHARGE",
    code: WAITING_CODE,
    name: `Waiting, period ${i + 1} of ${periods} (${rate.perMinutes} min)`,
    fee,
    ...(currency ? { currency } : {}),
    evidence,
  }));
}

/** The booking with its WAITING lines added to the fees and the total (unchanged when it earns none). */
export function withWaiting(b: Booking, units: MinorUnits): { booking: Booking; said?: string } {
  const lines = waitingLines(b, units);
  if (lines.length === 0) return { booking: b };
  const fees = [...b.trip.fees, ...lines];
  const total = sumOfLines(fees) ?? b.totalAmount;
  const evidence = lines[0].evidence as WaitingEvidence;
  const said = `waiting ${evidence.waitedMinutes} min: ${lines.length} WAITING line(s) of ${lines[0].fee}${lines[0].currency ? ` ${lines[0].currency}` : ""}`;
  return { booking: { ...b, trip: { ...b.trip, fees }, totalAmount: total }, said };
}
