import { describe, expect, test } from "bun:test";
import { allowedNext, assertTransition, canTransition, MAIN_PATH, parseTripStatus, skippedStates, skipTargets, STATUS_LABELS, TRIP_STATUSES, type TripStatus } from "../../../domain/trips/lifecycle";
import { ConflictError } from "../../../domain/errors";

// The lifecycle of docs/integration.md#the-lifecycle, written out independently of the implementation's table.
const EXPECTED: Record<TripStatus, TripStatus[]> = {
  QUOTE: ["BOOKING_REQUEST", "CANCEL"],
  BOOKING_REQUEST: ["PENDING", "CONFIRMED", "REJECT", "FAILED", "CANCEL"],
  PENDING: ["CONFIRMED", "REJECT", "CANCEL"],
  CONFIRMED: ["ACKNOWLEDGED", "ASSIGNED", "CANCEL"],
  ACKNOWLEDGED: ["ASSIGNED", "CANCEL"],
  ASSIGNED: ["ACKNOWLEDGED", "EN_ROUTE", "CANCEL"],
  EN_ROUTE: ["ON_LOCATION", "CANCEL"],
  ON_LOCATION: ["PASSENGER_ON_BOARD", "NO_SHOW", "CANCEL"],
  PASSENGER_ON_BOARD: ["STOP", "COMPLETE"],
  STOP: ["PASSENGER_ON_BOARD", "STOP", "COMPLETE"],
  COMPLETE: ["CLOSE"],
  FAILED: ["BOOKING_REQUEST", "CANCEL"],
  CLOSE: [],
  CANCEL: [],
  REJECT: [],
  NO_SHOW: [],
};

describe("trip lifecycle", () => {
  test("every pair of states is allowed exactly when docs/integration.md#the-lifecycle says so", () => {
    let pairs = 0;
    for (const from of TRIP_STATUSES) {
      for (const to of TRIP_STATUSES) {
        pairs++;
        expect({ from, to, allowed: canTransition(from, to) }).toEqual({ from, to, allowed: EXPECTED[from].includes(to) });
      }
    }
    expect(pairs).toBe(16 * 16);
  });

  test("terminal states allow nothing", () => {
    for (const s of ["CLOSE", "CANCEL", "REJECT", "NO_SHOW"] as const) expect(allowedNext(s)).toEqual([]);
  });

  test("a refused move is a 409 INVALID_TRANSITION listing the allowed next states", () => {
    try {
      assertTransition("EN_ROUTE", "CONFIRMED");
      throw new Error("not refused");
    } catch (e) {
      expect(e).toBeInstanceOf(ConflictError);
      const c = e as ConflictError;
      expect(c.code).toBe("INVALID_TRANSITION");
      expect(c.details?.allowed).toEqual(["ON_LOCATION", "CANCEL", "PASSENGER_ON_BOARD", "COMPLETE", "CLOSE"]);
      expect(c.message).toContain("ON_LOCATION, CANCEL, PASSENGER_ON_BOARD, COMPLETE, CLOSE");
    }
  });

  test("a provider may not put a booking into BOOKING_REQUEST (that is the requester's or the exchange's act)", () => {
    expect(allowedNext("QUOTE", "provider")).toEqual(["CANCEL"]);
    expect(allowedNext("FAILED", "provider")).toEqual(["CANCEL"]);
    expect(() => assertTransition("QUOTE", "BOOKING_REQUEST", "provider")).toThrow(ConflictError);
    expect(() => assertTransition("QUOTE", "BOOKING_REQUEST", "requester")).not.toThrow();
  });

  test("legacy spellings are read as the current names; case and spaces do not matter; junk is refused", () => {
    expect(parseTripStatus("ENROUTE")).toBe("EN_ROUTE");
    expect(parseTripStatus("AT_LOCATION")).toBe("ON_LOCATION");
    expect(parseTripStatus("accepted")).toBe("CONFIRMED");
    expect(parseTripStatus(" confirmed ")).toBe("CONFIRMED");
    expect(parseTripStatus("DONE")).toBeUndefined();
  });

  test("resStatus of BOOKING_REQUEST is Pending and every state has a label", () => {
    expect(STATUS_LABELS.BOOKING_REQUEST).toBe("Pending");
    for (const s of TRIP_STATUSES) expect(STATUS_LABELS[s].length).toBeGreaterThan(0);
  });
});

describe("forward skips along the main path", () => {
  const PATH = ["BOOKING_REQUEST", "PENDING", "CONFIRMED", "ASSIGNED", "EN_ROUTE", "ON_LOCATION", "PASSENGER_ON_BOARD", "COMPLETE", "CLOSE"] as const;

  test("every forward move along the main path is allowed, naming exactly the states in between", () => {
    expect([...MAIN_PATH]).toEqual([...PATH]);
    for (let i = 0; i < PATH.length; i++) {
      for (let j = i + 1; j < PATH.length; j++) {
        const [from, to] = [PATH[i], PATH[j]];
        expect(() => assertTransition(from, to, "provider")).not.toThrow();
        // A move the table has needs no skip; every other forward move skips exactly the states between.
        expect(skippedStates(from, to)).toEqual(canTransition(from, to) ? undefined : PATH.slice(i + 1, j));
      }
    }
  });

  test("the side states sit on the path: ACKNOWLEDGED as CONFIRMED, STOP as PASSENGER_ON_BOARD", () => {
    expect(skippedStates("ACKNOWLEDGED", "ON_LOCATION")).toEqual(["ASSIGNED", "EN_ROUTE"]);
    expect(skippedStates("STOP", "CLOSE")).toEqual(["COMPLETE"]);
    expect(skipTargets("ACKNOWLEDGED")).toEqual(["EN_ROUTE", "ON_LOCATION", "PASSENGER_ON_BOARD", "COMPLETE", "CLOSE"]);
  });

  test("backward moves, moves off the path and moves out of a final state stay refused", () => {
    const refused: Array<[TripStatus, TripStatus]> = [
      ["ON_LOCATION", "CONFIRMED"],
      ["COMPLETE", "PASSENGER_ON_BOARD"],
      ["CONFIRMED", "PENDING"],
      ["CONFIRMED", "NO_SHOW"],
      ["QUOTE", "CONFIRMED"],
      ["FAILED", "CONFIRMED"],
      ["REJECT", "CLOSE"],
      ["NO_SHOW", "COMPLETE"],
      ["CANCEL", "CLOSE"],
    ];
    for (const [from, to] of refused) {
      expect(skippedStates(from, to)).toBeUndefined();
      expect(() => assertTransition(from, to, "provider")).toThrow(ConflictError);
    }
  });
});
