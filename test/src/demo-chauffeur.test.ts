import { expect, test } from "bun:test";
import { createHarness } from "../support/harness";
import { DEMO_TRIP, startDemoChauffeur } from "../../src/demo/moving-chauffeur";

test("the demo trip is booked once, under way, and its chauffeur has a position that moves", async () => {
  const h = createHarness();
  const platform = await h.registerCompany({ netid: DEMO_TRIP.requesterId, coType: "CO" });
  await h.registerCompany({ netid: DEMO_TRIP.providerId, coType: "IO" });
  const stop = await startDemoChauffeur(h.services, 40);
  const token = await h.platformToken(platform.netid, platform.password);
  const where = await h.request("GET", `/Platform.svc/getChauffeurLocationByResNo/${DEMO_TRIP.requesterId}/${DEMO_TRIP.requesterResNo}/V1`, { headers: { token } });
  expect(where.status).toBe(200);
  expect(where.body).toMatchObject({ code: "EN_ROUTE", chfName: "Sam Lee", chfId: "CH-DEMO" });
  // On the loop from JFK into Manhattan.
  expect(where.body.location.lat).toBeWithin(40.64, 40.76);
  expect(where.body.location.lon).toBeWithin(-73.99, -73.77);
  const path = `/Platform.svc/getChauffeurLocationByTransactionId/${where.body.transactionId}/V1`;
  const deadline = Date.now() + 3000;
  let moved = where.body;
  while (moved.location.lat === where.body.location.lat && Date.now() < deadline) {
    await Bun.sleep(20);
    moved = (await h.request("GET", path, { headers: { token } })).body;
  }
  expect(moved.location.lat).not.toBe(where.body.location.lat);
  stop();
  // A restart finds the same trip and moves on from the start of the loop again.
  const again = await startDemoChauffeur(h.services);
  again();
  const list = await h.request("GET", `/api/reservations?requesterResNo=${DEMO_TRIP.requesterResNo}`, { headers: { authorization: `Bearer ${await h.coreToken(platform.netid, platform.password)}` } });
  expect(list.body.data.total).toBe(1);
  await h.close();
});
