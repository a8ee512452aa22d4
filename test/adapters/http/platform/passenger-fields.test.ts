import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createHarness, type Harness } from "../../../support/harness";
import { parties, regularTrip, sendTrip, type Party } from "../../../support/trips";

/** #38 item 6: a passenger member GNet does not know is a warning naming it, the booking taken all the same. */
let h: Harness;
let requester: Party, provider: Party;
beforeAll(async () => {
  h = createHarness();
  ({ requester, provider } = await parties(h, "-PAX"));
});
afterAll(() => h?.close());

describe("passengers[] members", () => {
  test("`phone` for `phoneNumber` is a warning UNKNOWN_PASSENGER_FIELD naming passengers[0].phone, suggesting phoneNumber", async () => {
    const trip = regularTrip(requester.netid, provider.netid) as Record<string, any>;
    const res = await sendTrip(h, requester, { ...trip, passengers: [{ firstName: "Ada", lastName: "Lovelace", phone: "+1 212 555 0100" }] });
    expect(res.status).toBe(200);
    expect(res.body.success).toBe(true);
    const warning = res.body.warnings.find((w: { code: string }) => w.code === "UNKNOWN_PASSENGER_FIELD");
    expect(warning).toMatchObject({ field: "passengers[0].phone", message: expect.stringContaining("did you mean phoneNumber?") });
  });

  test("the known members warn of nothing", async () => {
    const trip = regularTrip(requester.netid, provider.netid) as Record<string, any>;
    const passengers = [{ firstName: "Ada", lastName: "Lovelace", phoneNumber: "+1 212 555 0100", email: "ada@example.com", accountNumber: "A1", phones: [{ number: "+1 212 555 0101", type: "mobile" }] }];
    const res = await sendTrip(h, requester, { ...trip, affiliateReservation: { ...trip.affiliateReservation, requesterResNo: "PAX-2" }, passengers });
    expect(res.status).toBe(200);
    expect((res.body.warnings ?? []).filter((w: { code: string }) => w.code === "UNKNOWN_PASSENGER_FIELD")).toEqual([]);
  });
});
