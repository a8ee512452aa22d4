import { describe, expect, test } from "bun:test";
import { canonicalPlatformPath, platformOperations } from "../../../adapters/http/platform-paths";
import { dropNullOptionals } from "../../../adapters/http/null-fields";
import { SendTripBody } from "../../../adapters/http/platform/send-trip.model";
import { ProviderUpdateBody } from "../../../adapters/http/platform/provider-update.model";

const operations = platformOperations([
  "/Platform.svc/sendTrip/V1",
  "/Platform.svc/getReservationByReservationId/:netid/:resNo",
  "/Platform.svc/getToken2",
  "/api/reservation/:transactionId",
]);

describe("platform paths in any letter case", () => {
  test("the service segment and the operation are folded; ids, reservation numbers and the version are kept", () => {
    expect(canonicalPlatformPath("/platform.svc/sendtrip/v1", operations)).toBe("/Platform.svc/sendTrip/v1");
    expect(canonicalPlatformPath("/PLATFORM.SVC/GETTOKEN2", operations)).toBe("/Platform.svc/getToken2");
    expect(canonicalPlatformPath("/platform.svc/GETRESERVATIONBYRESERVATIONID/acme-Limo/ab-12/V1", operations)).toBe(
      "/Platform.svc/getReservationByReservationId/acme-Limo/ab-12/V1",
    );
    // Unknown operations keep their spelling (and answer 404); other surfaces are not platform paths.
    expect(canonicalPlatformPath("/platform.svc/Unknown/v1", operations)).toBe("/Platform.svc/Unknown/v1");
    expect(canonicalPlatformPath("/api/reservation/x", operations)).toBeUndefined();
    expect(canonicalPlatformPath("/platformXsvc/sendtrip", operations)).toBeUndefined();
    expect([...operations.keys()].sort()).toEqual(["getreservationbyreservationid", "gettoken2", "sendtrip"]);
  });
});

describe("null on an optional field means absent", () => {
  test("nulls the schema declares optional are removed at every depth; unnamed members and required ones are left", () => {
    const body: Record<string, any> = {
      luggageCount: null,
      locations: { pickup: { lat: null, lon: 1, landmark: null, custom: null }, stops: [{ address: "1 Main St", city: null }] },
      passengers: [{ firstName: "A", email: null, phones: [{ number: "1", type: null }] }],
      account: null,
      mystery: null,
    };
    dropNullOptionals(SendTripBody, body);
    expect(body).toEqual({
      locations: { pickup: { lon: 1, custom: null }, stops: [{ address: "1 Main St" }] },
      passengers: [{ firstName: "A", phones: [{ number: "1" }] }],
      mystery: null,
    });
    const update: Record<string, any> = { status: null, resNo: null, vehicle: { plateNo: null, make: "Cadillac" } };
    dropNullOptionals(ProviderUpdateBody, update);
    expect(update).toEqual({ status: null, vehicle: { make: "Cadillac" } });
  });
});
