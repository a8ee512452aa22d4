import { describe, expect, test } from "bun:test";
import { localToUnixByPackage, PackagedTimeZones } from "../../../adapters/airports/time-zones";

// Zones with DST, half- and quarter-hour offsets, midnight changes, negative DST, Ramadan suspensions, 2-hour DST.
const ZONES = [
  "America/New_York", "Europe/London", "Europe/Dublin", "Australia/Lord_Howe", "America/Santiago", "Asia/Kathmandu", "Pacific/Chatham",
  "Africa/Casablanca", "America/Havana", "Asia/Gaza", "Antarctica/Troll", "America/St_Johns", "Asia/Tokyo", "UTC", "Not/AZone",
];

describe("PackagedTimeZones.localToUnix", () => {
  test("answers what the package answers, for every half hour near midnight and the usual change hours of 2026–2027", () => {
    const zones = new PackagedTimeZones();
    const mismatches: string[] = [];
    for (const zone of ZONES) {
      for (let day = Date.UTC(2026, 0, 1); day < Date.UTC(2028, 0, 1); day += 86_400_000) {
        const date = new Date(day).toISOString().slice(0, 10);
        for (const hm of ["00:00", "00:30", "01:00", "01:30", "02:00", "02:30", "03:00", "03:30", "12:45", "23:00", "23:30", "23:59"]) {
          const local = `${date}T${hm}:00`;
          const got = zones.localToUnix(local, zone);
          const want = localToUnixByPackage(local, zone);
          if (got !== want) mismatches.push(`${zone} ${local}: ${got} ≠ ${want}`);
        }
      }
    }
    expect(mismatches.slice(0, 10)).toEqual([]);
  });

  test("answers what the package answers for random wall-clock times, asked twice (cached)", () => {
    const zones = new PackagedTimeZones();
    let seed = 20261122;
    const next = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    for (let i = 0; i < 3000; i++) {
      const zone = ZONES[Math.floor(next() * ZONES.length)];
      const local = new Date(Date.UTC(2020, 0, 1) + Math.floor(next() * 15 * 365 * 86_400) * 1000).toISOString().slice(0, 19);
      const want = localToUnixByPackage(local, zone);
      expect(zones.localToUnix(local, zone)).toBe(want);
      expect(zones.localToUnix(local, zone)).toBe(want);
    }
  });

  test("a wall-clock time skipped by a spring-forward change reads one hour later", () => {
    const zones = new PackagedTimeZones();
    expect(zones.localToUnix("2026-03-08T02:30:00", "America/New_York")).toBe(Date.UTC(2026, 2, 8, 7, 30) / 1000);
    expect(zones.localToUnix("2026-12-03T18:45:00", "America/New_York")).toBe(Date.UTC(2026, 11, 3, 23, 45) / 1000);
  });
});
