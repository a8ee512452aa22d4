import { describe, expect, test } from "bun:test";
import { PackagedAirportDirectory } from "../../../adapters/airports/directory";
import { PackagedTimeZones } from "../../../adapters/airports/time-zones";
import { pickupTimeWarnings, readPickupTime } from "../../../domain/trips/pickup-time";

// docs/places.md#the-pickups-clock
const airports = new PackagedAirportDirectory();
const zones = new PackagedTimeZones();
const unix = (iso: string) => Date.parse(iso) / 1000;
const read = (pickup: Record<string, string>) => readPickupTime(pickup, airports, zones);

describe("readPickupTime", () => {
  test("a time the autumn change repeats is its earlier instant, without an adjustment", () => {
    const time = read({ locationType: "airport", address: "JFK", time: "2027-11-07T01:30" });
    expect(time).toEqual({ at: unix("2027-11-07T05:30:00Z"), clock: { zone: "America/New_York", local: "2027-11-07T01:30:00" } });
    expect(pickupTimeWarnings(time)).toEqual([]);
    expect(read({ locationType: "address", lat: "51.5007", lon: "-0.1246", time: "2027-10-31T01:30:00" })).toEqual({
      at: unix("2027-10-31T00:30:00Z"),
      clock: { zone: "Europe/London", local: "2027-10-31T01:30:00" },
    });
  });

  test("a time the spring change skips moves forward by the gap and says what was sent and what is used", () => {
    const time = read({ locationType: "airport", address: "JFK", time: "2027-03-14T02:30:00.5" });
    expect(time).toEqual({
      at: unix("2027-03-14T07:30:00Z"),
      adjusted: { sent: "2027-03-14T02:30:00", used: "2027-03-14T03:30:00", zone: "America/New_York" },
      // The wall clock a rate card's hours read is the one used.
      clock: { zone: "America/New_York", local: "2027-03-14T03:30:00" },
    });
    expect(pickupTimeWarnings(time)).toEqual([
      {
        code: "PICKUP_TIME_ADJUSTED",
        field: "locations.pickup.time",
        message:
          "The pickup time 2027-03-14T02:30:00 does not exist in America/New_York: the clocks go forward over it. It is read as " +
          "2027-03-14T03:30:00 local time (2027-03-14T07:30:00Z), 60 minutes later; send another time to change it",
      },
    ]);
  });

  test("an offset in the time wins over the zone; an unplaced pickup reads in UTC; a time that is none is undefined", () => {
    // Sent with an offset, the instant is known and the pickup's wall clock is not read (a card converts it back).
    expect(read({ locationType: "airport", address: "JFK", time: "2027-03-14T02:30:00-05:00" })).toEqual({ at: unix("2027-03-14T07:30:00Z") });
    expect(read({ locationType: "address", address: "somewhere", time: "2027-03-14T02:30" })).toEqual({
      at: unix("2027-03-14T02:30:00Z"),
      clock: { zone: "UTC", local: "2027-03-14T02:30:00" },
    });
    expect(read({ locationType: "airport", address: "JFK", time: "tomorrow" })).toBeUndefined();
    expect(pickupTimeWarnings(undefined)).toEqual([]);
  });
});
