import { describe, expect, test } from "bun:test";
import { Elysia } from "elysia";
import { docs } from "../../../adapters/http/docs";
import { platformTrips } from "../../../adapters/http/platform/trips";
import { createHarness } from "../../support/harness";
import sendTripNew from "../../../adapters/http/examples/sendtrip-new.json";
import sendTripQuote from "../../../adapters/http/examples/sendtrip-quote.json";
import quoteResponse from "../../../adapters/http/examples/quote-response.json";

describe("OpenAPI for the trip operations", () => {
  test("core: lookup, listing and the lifecycle are documented with their error statuses", async () => {
    const h = createHarness();
    const spec = (await h.request("GET", "/docs/json")).body;
    expect(Object.keys(spec.paths["/api/reservation/{transactionId}"].get.responses)).toEqual(expect.arrayContaining(["200", "400", "401", "404"]));
    expect(Object.keys(spec.paths["/api/reservations"].get.responses)).toEqual(expect.arrayContaining(["200", "400", "401"]));
    expect(spec.paths["/api/trip-states"].get).toBeDefined();
  });

  test("platform: sendTrip carries the shared REGULAR and QUOTE examples and the quote response; every operation is documented once", async () => {
    const h = createHarness();
    const app = new Elysia().use(docs()).use(platformTrips({ ...h.services.trips, auth: h.services.authenticator, rateLimiter: h.services.rateLimiter, positions: h.services.positions }));
    const spec = await (await app.handle(new Request("http://localhost/docs/json"))).json();
    const paths = Object.keys(spec.paths).filter((p) => p.startsWith("/Platform.svc")).sort();
    expect(paths).toEqual([
      "/Platform.svc/cancelTripByResNo/{netid}/{resNo}/V1",
      "/Platform.svc/cancelTripByTransactionId/{transactionId}/V1",
      "/Platform.svc/getReservationByReservationId/{netid}/{resNo}/V1",
      "/Platform.svc/getReservationByTransactionId/{transactionId}/V1",
      "/Platform.svc/providerUpdateStatusByResNo/{netid}/{resNo}/V1",
      "/Platform.svc/providerUpdateStatusByTransactionId/{transactionId}/V1",
      "/Platform.svc/sendTrip/V1",
    ]);
    expect(Object.keys(spec.paths["/Platform.svc/cancelTripByResNo/{netid}/{resNo}/V1"]).sort()).toEqual(["get", "post"]);
    const send = spec.paths["/Platform.svc/sendTrip/V1"].post;
    expect(JSON.stringify(send.requestBody)).toContain(JSON.stringify(sendTripNew.affiliateReservation));
    expect(JSON.stringify(send.requestBody)).toContain(JSON.stringify(sendTripQuote.affiliateReservation));
    expect(JSON.stringify(send.responses["200"])).toContain(quoteResponse.fees[0].validUntil);
    expect(Object.keys(send.responses)).toEqual(expect.arrayContaining(["200", "400", "401", "403", "409"]));
  });
});
