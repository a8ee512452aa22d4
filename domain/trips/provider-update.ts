import { ConflictError, ValidationError, type FieldError } from "../errors";
import { amountParts } from "../money";
import { providerAmountsInCurrency, TWO_DECIMAL_UNITS, type MinorUnits } from "./booking-amounts";
import type { Booking, BookingEvent, Chauffeur, Fee, ProviderUpdateInfo, Vehicle } from "./booking";
import { canonicalJson, event, log, requireRole, type ChangeContext } from "./decisions";
import { allowedNext, assertTransition, assertTripTime, parseTripStatus, skippedStates, TRIP_STATUSES, type TripStatus } from "./lifecycle";
import type { Decision } from "./decision";
import { isUuid } from "./send-trip-request";
import { providerFare, sameAmount } from "./fare-lines";
import { lapsedAcceptance, providerCancelOf } from "./offers";
import { fareFinalError, fareOnMove, isFareFinal, isFareOpen } from "./final-fare";
import { ANY_DECIMALS, checkFees, copyTrimming, extraFields, numberText, readCoordinateField, readPhones } from "./trip-fields";

/**
 * A provider's status update as received (providerUpdateStatusByTransactionId / …ByResNo): GNet's body
 * (resNo, LocalTimestamp, UTCtimestamp, griddID, chauffeur, vehicle with GNet's names, fees, lat/lon) or the
 * older names (providerResNo, licensePlate, color, vehType). Members no schema names are kept.
 */
export interface ProviderUpdateInput {
  status?: string;
  resNo?: string;
  providerResNo?: string;
  LocalTimestamp?: string;
  UTCtimestamp?: string;
  griddID?: string;
  requesterResNo?: string;
  transactionId?: string;
  providerNote?: string;
  totalAmount?: string | number;
  fees?: unknown[];
  vehicle?: Record<string, unknown>;
  chauffeur?: Record<string, unknown>;
  lat?: string | number;
  lon?: string | number;
  [field: string]: unknown;
}

/** A provider's update, checked: the new status and the details it brings. */
export interface ProviderUpdate {
  status: TripStatus;
  providerResNo?: string;
  providerNote?: string;
  totalAmount?: string;
  fees?: Fee[];
  vehicle?: Vehicle;
  chauffeur?: Chauffeur;
  /** The chauffeur's position, kept by the tracking store (not in the booking). */
  position?: { lat: number; lon: number };
  /** GNet's timestamps, griddID and any member no schema names. */
  info?: ProviderUpdateInfo;
  /** When the body names the booking too, it must be this one. */
  names?: { transactionId?: string; requesterResNo?: string };
}

const KNOWN: ReadonlySet<string> = new Set([
  "status",
  "resNo",
  "providerResNo",
  "requesterResNo",
  "transactionId",
  "providerNote",
  "totalAmount",
  "fees",
  "vehicle",
  "chauffeur",
  "lat",
  "lon",
]);
const VEHICLE_TEXT = ["vehicleId", "vehicleType", "make", "model", "vin", "plateNo", "vColor", "vehType", "color", "licensePlate", "description"];
const CHAUFFEUR_TEXT = ["chauffeurId", "firstName", "lastName", "email", "phoneNumber", "picURL"];
const INFO_TEXT = ["LocalTimestamp", "UTCtimestamp", "griddID"];

const text = (v: string | undefined) => (v === undefined ? undefined : v.trim());

/** Checks a provider update and reports every failing field at once (400). */
export function checkProviderUpdate(input: ProviderUpdateInput): ProviderUpdate {
  const errors: FieldError[] = [];
  const fail = (field: string, message: string) => errors.push({ field, message });
  let status: TripStatus | undefined;
  if ((input.status ?? "").trim() === "") fail("status", "is required");
  else {
    status = parseTripStatus(input.status!);
    if (!status) fail("status", `must be one of ${TRIP_STATUSES.join(", ")} (legacy ENROUTE, AT_LOCATION, ACCEPTED accepted)`);
  }
  const resNo = text(input.resNo);
  const providerResNo = text(input.providerResNo);
  if (resNo !== undefined && providerResNo !== undefined && resNo !== providerResNo)
    fail("resNo", "must equal providerResNo when both are sent (they name the same number)");

  let totalAmount: string | undefined;
  const amount = typeof input.totalAmount === "number" ? numberText(input.totalAmount) : text(input.totalAmount);
  if (amount !== undefined && amount !== "") {
    // Put in the booking's currency's minor unit once the booking is known (decideProviderUpdate).
    if (amountParts(amount)) totalAmount = amount;
    else fail("totalAmount", "must be a decimal amount, e.g. 125.00");
  }
  const fees = input.fees === undefined ? undefined : checkFees(input.fees, "fees", fail, ANY_DECIMALS);

  const lat = readCoordinateField(input.lat, 90, "lat", fail);
  const lon = readCoordinateField(input.lon, 180, "lon", fail);
  if ((lat === undefined) !== (lon === undefined) && errors.every((e) => e.field !== "lat" && e.field !== "lon"))
    fail(lat === undefined ? "lat" : "lon", "is required with the other coordinate: send lat and lon together");

  const transactionId = text(input.transactionId);
  if (transactionId && !isUuid(transactionId)) fail("transactionId", "must be a UUID");

  let chauffeur: Chauffeur | undefined;
  if (input.chauffeur !== undefined) {
    chauffeur = copyTrimming(input.chauffeur, CHAUFFEUR_TEXT) as Chauffeur;
    if (Array.isArray(input.chauffeur.phones)) chauffeur.phones = readPhones(input.chauffeur.phones, "chauffeur.phones", fail);
  }
  if (errors.length > 0) throw new ValidationError(errors);

  const extra = extraFields(input, KNOWN);
  const info = extra ? (copyTrimming(extra, INFO_TEXT) as ProviderUpdateInfo) : undefined;
  const requesterResNo = text(input.requesterResNo);
  return {
    status: status!,
    ...((resNo ?? providerResNo) !== undefined ? { providerResNo: (resNo ?? providerResNo)! } : {}),
    ...(input.providerNote !== undefined ? { providerNote: input.providerNote.trim() } : {}),
    ...(totalAmount !== undefined ? { totalAmount } : {}),
    ...(fees !== undefined ? { fees } : {}),
    ...(input.vehicle !== undefined ? { vehicle: copyTrimming(input.vehicle, VEHICLE_TEXT) as Vehicle } : {}),
    ...(chauffeur !== undefined ? { chauffeur } : {}),
    ...(lat !== undefined && lon !== undefined ? { position: { lat: Number(lat), lon: Number(lon) } } : {}),
    ...(info !== undefined ? { info } : {}),
    ...(transactionId || requesterResNo
      ? { names: { ...(transactionId ? { transactionId: transactionId.toLowerCase() } : {}), ...(requesterResNo ? { requesterResNo } : {}) } }
      : {}),
  };
}

/** A status move in words: "status CONFIRMED → ON_LOCATION (skipped ASSIGNED, EN_ROUTE)". */
function describeMove(from: TripStatus, to: TripStatus): string {
  const skipped = skippedStates(from, to);
  return `status ${from} → ${to}${skipped ? ` (skipped ${skipped.join(", ")})` : ""}`;
}

/**
 * The provider moves its booking along the lifecycle (forward skips along the main path included) and may add
 * its reservation number, a note, the price, fees, the vehicle and the chauffeur. Repeating the current status
 * changes only the details (STOP → STOP is a real transition: another stop); nothing changes in a final state.
 * Its amounts take the booking's currency's minor unit (`units`). The trip's own statuses wait for the trip (409
 * STATUS_TOO_EARLY more than 12 h before the pickup), unless `simulated` (the sandbox's dispatcher plays a whole trip
 * in a minute). Answers the booking's status after the update (the caller keeps a position only while the trip is under way).
 */
export function decideProviderUpdate(
  current: Booking | undefined,
  checked: ProviderUpdate,
  ctx: ChangeContext,
  units: MinorUnits = TWO_DECIMAL_UNITS,
  simulated = false,
): Decision<TripStatus> {
  const b = requireRole(current, ctx.netid, "provider");
  // Amounts in the booking's currency's minor unit (docs/integration.md#what-a-quote-offers-service-area-currency-warnings); too many decimals for it is 400.
  const written = { totalAmount: checked.totalAmount, fees: checked.fees };
  const update: ProviderUpdate = { ...checked, ...providerAmountsInCurrency(written, b.trip.fees, units, true) };
  if (update.names?.transactionId !== undefined && update.names.transactionId !== b.transactionId.toLowerCase())
    throw new ValidationError([{ field: "transactionId", message: "names another booking than the one being updated" }]);
  if (update.names?.requesterResNo !== undefined && update.names.requesterResNo !== b.requesterResNo)
    throw new ValidationError([{ field: "requesterResNo", message: "is not this booking's requesterResNo" }]);
  const statusChange = update.status !== b.status || b.status === "STOP";
  if (statusChange) assertTransition(b.status, update.status, "provider");
  const lapsed = statusChange ? lapsedAcceptance(b, update.status, ctx.now) : undefined;
  if (lapsed) throw lapsed;
  if (statusChange && !simulated) assertTripTime(update.status, b.pickupDate, ctx.now);

  const descriptions: string[] = [];
  if (statusChange) descriptions.push(describeMove(b.status, update.status));
  const next: Booking = { ...b, status: update.status };
  // The provider's own CANCEL: a decline before it accepted, a give-back after (docs/terms.md#give-back).
  if (statusChange && update.status === "CANCEL") next.providerCancelled = providerCancelOf(b.status);
  if (update.providerResNo !== undefined && update.providerResNo !== (b.providerResNo ?? "")) {
    descriptions.push(`providerResNo ${b.providerResNo ?? "(none)"} → ${update.providerResNo}`);
    next.providerResNo = update.providerResNo;
  }
  // The fare's window opens when the trip ends (docs/settlement.md#the-final-fare).
  if (statusChange) next.finalFare = fareOnMove(b, update.status, ctx.now);
  const fareOpen = isFareOpen(b, ctx.now);
  let fareLines = 0;
  // The price is the sum of its lines (docs/terms.md#the-price-is-the-sum-of-its-lines): quoted lines stay, added ones sum in.
  if (isFareFinal(b, ctx.now) && (update.fees !== undefined || update.totalAmount !== undefined)) {
    // A final fare no longer changes (docs/settlement.md#the-final-fare): the same price is nothing, another one 409.
    const fare = providerFare(b, { totalAmount: update.totalAmount, fees: update.fees });
    if (fare.errors.length > 0 || fare.described.length > 0) throw fareFinalError(b);
  } else if (allowedNext(b.status).length === 0 && !fareOpen) {
    // A final booking's price no longer changes: a different one is the 409 below, the same one nothing.
    const priceDiffers =
      (update.totalAmount !== undefined && (b.totalAmount === null || !sameAmount(update.totalAmount, b.totalAmount))) ||
      (update.fees !== undefined && canonicalJson(update.fees) !== canonicalJson(b.trip.fees));
    if (priceDiffers) descriptions.push("fees changed");
  } else {
    const fare = providerFare(b, { totalAmount: update.totalAmount, fees: update.fees });
    if (fare.errors.length > 0) throw new ValidationError(fare.errors);
    descriptions.push(...fare.described);
    fareLines = fare.described.length;
    if (fare.totalAmount !== undefined) next.totalAmount = fare.totalAmount;
    if (fare.fees !== undefined && canonicalJson(fare.fees) !== canonicalJson(b.trip.fees)) next.trip = { ...b.trip, fees: fare.fees };
  }
  if (update.providerNote !== undefined && update.providerNote !== (b.providerNote ?? "")) {
    descriptions.push("providerNote changed");
    next.providerNote = update.providerNote;
  }
  if (update.vehicle !== undefined && canonicalJson(update.vehicle) !== canonicalJson(b.vehicle ?? {})) {
    descriptions.push("vehicle assigned");
    next.vehicle = update.vehicle;
  }
  if (update.chauffeur !== undefined && canonicalJson(update.chauffeur) !== canonicalJson(b.chauffeur ?? {})) {
    descriptions.push("chauffeur assigned");
    next.chauffeur = update.chauffeur;
  }
  // GNet's update metadata is kept without a changeLogs line (a dispatch system sends it with every update).
  const infoChanged = update.info !== undefined && canonicalJson(update.info) !== canonicalJson(b.providerUpdate ?? {});
  if (update.info) next.providerUpdate = update.info;

  if (descriptions.length === 0 && !infoChanged) return { result: b.status };
  // A closed booking whose fare is open takes lines only (repeating CLOSE with `fees`); any other change is refused.
  const otherChanges = descriptions.length - (fareOpen ? fareLines : 0);
  if (otherChanges > 0 && !statusChange && allowedNext(b.status).length === 0)
    throw new ConflictError(`A booking in status ${b.status} can no longer change`, "INVALID_TRANSITION", { from: b.status, to: update.status, allowed: [] });
  if (descriptions.length === 0 && allowedNext(b.status).length === 0) return { result: b.status };

  next.updatedAt = ctx.now;
  next.changeLogs = [...b.changeLogs, ...descriptions.map((d) => log(ctx, "provider", d))];
  const events: BookingEvent[] = [];
  if (statusChange) events.push(event(next, "STATUS_CHANGED", "provider", ctx, b.status));
  if (descriptions.length > (statusChange ? 1 : 0)) events.push(event(next, "PROVIDER_DETAILS_CHANGED", "provider", ctx));
  return { result: next.status, write: { booking: next, events } };
}

/** The code of the conflict when a provider's reservation number is held by another of its live bookings. */
export const PROVIDER_RES_NO_IN_USE = "PROVIDER_RES_NO_IN_USE";

/**
 * 409: the provider's number `resNo` names another of its live bookings (a number names at most one; the database
 * refuses a second holder, so two concurrent updates cannot both take it).
 */
export function providerResNoInUse(resNo: string | null): ConflictError {
  return new ConflictError(
    `Your reservation number${resNo ? ` ${resNo}` : ""} is held by another of your live bookings; use another number, or close or cancel that booking first`,
    PROVIDER_RES_NO_IN_USE,
    { field: "providerResNo" },
  );
}

/** Whether `error` is that conflict. */
export function isProviderResNoInUse(error: unknown): boolean {
  return error instanceof ConflictError && error.code === PROVIDER_RES_NO_IN_USE;
}
