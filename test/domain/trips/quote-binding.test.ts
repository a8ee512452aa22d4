import { describe, expect, test } from "bun:test";
import { pricedDifferences, pricedKey, QUOTE_TIME_TOLERANCE_SECONDS, requestedExtras } from "../../../domain/trips/quote-binding";

const quoted = {
  passengerCount: "3",
  luggageCount: "2",
  locations: {
    pickup: { locationType: "airport", address: "SFO", time: "2027-01-15T08:00:00" },
    dropOff: { address: "1 Infinite Loop, Cupertino, CA", lat: "37.3318", lon: "-122.0312" },
  },
};
const fields = (asked: object) => pricedDifferences(quoted, asked, { toleranceSeconds: QUOTE_TIME_TOLERANCE_SECONDS }).map((e) => e.field);

describe("pricedDifferences (docs/integration.md#the-price-is-bound-to-the-trip)", () => {
  test("the same trip, re-spelt: no difference (case and spaces of names, coordinates within 100 m, counts as numbers)", () => {
    const asked = {
      passengerCount: 3,
      luggageCount: 2,
      locations: {
        pickup: { locationType: "AIRPORT", address: " sfo ", time: "2027-01-15T08:59:00" },
        dropOff: { address: "Apple Park", lat: 37.3322, lon: "-122.0310" },
      },
    };
    expect(fields(asked)).toEqual([]);
  });

  test("each priced field is named, in order; the pickup time only beyond 60 minutes", () => {
    const asked = {
      passengerCount: "4",
      luggageCount: undefined,
      totalTripDuration: "180",
      runType: "HOURLY",
      extras: [{ code: "CHILD_SEAT", quantity: 1 }],
      locations: {
        pickup: { locationType: "airport", address: "OAK", time: "2027-01-15T09:01:00" },
        dropOff: { address: "San Jose", lat: "37.3382", lon: "-121.8863" },
        stops: [{ address: "Palo Alto" }],
      },
    };
    expect(fields(asked)).toEqual([
      "locations.pickup",
      "locations.pickup.time",
      "locations.dropOff",
      "locations.stops",
      "passengerCount",
      "luggageCount",
      "extras",
      "totalTripDuration",
      "runType",
    ]);
  });

  test("extras: order and spelling aside; meet & greet on the pickup asks MEET_AND_GREET; extras kept as an unnamed member count", () => {
    expect(requestedExtras({ extras: [{ code: "child_seat", quantity: 2 }, { code: "WIFI" }] })).toBe("CHILD_SEAT×2,WIFI×1");
    expect(requestedExtras({ extra: { extras: [{ code: "WIFI" }] }, locations: { pickup: { meetAndGreet: "True" } } })).toBe("MEET_AND_GREET×1,WIFI×1");
  });

  test("pricedKey: equal for trips priced alike, different when a priced field moves (an UPDATE re-prices on any move)", () => {
    expect(pricedKey(quoted, 100)).toBe(pricedKey({ ...quoted, specialInstructions: "Door 4" } as typeof quoted, 100));
    expect(pricedKey(quoted, 100)).not.toBe(pricedKey(quoted, 160));
    expect(pricedKey(quoted)).not.toBe(pricedKey({ ...quoted, passengerCount: "4" }));
  });
});
