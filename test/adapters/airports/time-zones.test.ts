import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { Temporal as PolyfillTemporal } from "temporal-polyfill/implementation";
import { PackagedTimeZones } from "../../../adapters/airports/time-zones";

// docs/places.md#the-pickups-clock: a wall-clock time the autumn change repeats is the earlier instant; one the spring
// change skips moves forward by the gap. The oracle below reads the runtime's Intl time-zone data, not Temporal.

const HOUR = 3600;
const unix = (iso: string) => Date.parse(iso) / 1000;

const formats = new Map<string, Intl.DateTimeFormat>();
/** The wall clock `YYYY-MM-DDTHH:mm:ss` Intl shows in `zone` at Unix second `at`. */
function intlWallClock(at: number, zone: string): string {
  let f = formats.get(zone);
  if (!f) {
    const two = "2-digit" as const;
    f = new Intl.DateTimeFormat("en-CA", { timeZone: zone, year: "numeric", month: two, day: two, hour: two, minute: two, second: two, hourCycle: "h23" });
    formats.set(zone, f);
  }
  const p = Object.fromEntries(f.formatToParts(new Date(at * 1000)).map((x) => [x.type, x.value]));
  return `${p.year}-${p.month}-${p.day}T${p.hour}:${p.minute}:${p.second}`;
}
/** The zone's offset east of UTC (seconds) at `at`, from Intl. */
const offsetAt = (at: number, zone: string) => unix(`${intlWallClock(at, zone)}Z`) - at;
const wallClockOf = (naive: number) => new Date(naive * 1000).toISOString().slice(0, 19);

interface Change {
  zone: string;
  /** The instant the offset changes, and the offsets (seconds east of UTC) before and after. */
  at: number;
  before: number;
  after: number;
}

/** Every offset change of `zone` in [from, to), found from Intl hour by hour and narrowed to the second. */
function changesOf(zone: string, from: number, to: number): Change[] {
  const changes: Change[] = [];
  for (let t = from; t < to; t += HOUR) {
    const before = offsetAt(t, zone);
    const after = offsetAt(t + HOUR, zone);
    if (before === after) continue;
    let [lo, hi] = [t, t + HOUR];
    while (hi - lo > 1) {
      const mid = Math.floor((lo + hi) / 2);
      if (offsetAt(mid, zone) === before) lo = mid;
      else hi = mid;
    }
    changes.push({ zone, at: hi, before, after });
  }
  return changes;
}

// Zones with a one-hour change (New York, London, Paris, Sydney in the south), Lord Howe's 30 minutes, Chatham's
// quarter-hour offset, Santiago's change at midnight.
const ZONES = ["America/New_York", "Europe/London", "Europe/Paris", "Australia/Sydney", "Australia/Lord_Howe", "Pacific/Chatham", "America/Santiago"];
const CHANGES = ZONES.flatMap((zone) => changesOf(zone, unix("2026-01-01T00:00:00Z"), unix("2030-01-01T00:00:00Z")));

/** The reading Temporal's "compatible" rule gives, from Intl: the earliest instant showing `local`, else moved by the gap. */
function oracle(local: string, zone: string): { at: number; skipped: boolean } {
  const naive = unix(`${local}Z`);
  const candidates = [naive - offsetAt(naive - 86_400, zone), naive - offsetAt(naive + 86_400, zone)]
    .filter((t) => intlWallClock(t, zone) === local)
    .sort((a, b) => a - b);
  return candidates.length > 0 ? { at: candidates[0], skipped: false } : { at: naive - offsetAt(naive - 86_400, zone), skipped: true };
}

/** A wall-clock time up to 36 hours either side of a change, on the minute. */
const nearChange = fc
  .tuple(fc.constantFrom(...CHANGES), fc.integer({ min: -36 * 60, max: 36 * 60 }))
  .map(([change, minutes]) => ({ change, local: wallClockOf(change.at + change.before + minutes * 60) }));

test("the oracle finds the changes: two a year in each zone with daylight saving, 2026–2029", () => {
  for (const zone of ZONES) expect(CHANGES.filter((c) => c.zone === zone).length).toBe(8);
  expect(CHANGES.find((c) => c.zone === "Australia/Lord_Howe")!.after - CHANGES.find((c) => c.zone === "Australia/Lord_Howe")!.before).toBe(-1800);
});

// The service runs on Bun, whose own Temporal the polyfill hands on; elsewhere the polyfill's own implementation reads.
describe.each([
  ["the runtime's Temporal", new PackagedTimeZones()],
  ["temporal-polyfill's own implementation", new PackagedTimeZones(PolyfillTemporal)],
])("PackagedTimeZones (%s): a wall-clock time read in its zone", (_, zones) => {
  test("near every change: the instant Intl shows as that wall clock, the earlier of two, a skipped one moved by the gap", () => {
    fc.assert(
      fc.property(nearChange, ({ change, local }) => {
        const want = oracle(local, change.zone);
        const at = zones.localToUnix(local, change.zone);
        expect(at).toBe(want.at);
        // One reading gives both: the instant, and the wall clock it shows.
        expect(zones.readWallClock(local, change.zone)).toEqual({ at: want.at, wallClock: intlWallClock(want.at, change.zone) });
        if (want.skipped) {
          // Moved forward by the gap: the wall clock shown is the one sent plus (after − before).
          expect(intlWallClock(at!, change.zone)).toBe(wallClockOf(unix(`${local}Z`) + change.after - change.before));
          expect(zones.wallClockAt(at!, change.zone)).not.toBe(local);
        } else {
          expect(intlWallClock(at!, change.zone)).toBe(local);
          expect(zones.wallClockAt(at!, change.zone)).toBe(local);
          // The earlier of two: an instant one change-width earlier never shows the same wall clock.
          expect(intlWallClock(at! - Math.abs(change.after - change.before), change.zone)).not.toBe(local);
        }
      }),
      { numRuns: 3000 },
    );
  });

  test("every minute of every repeated and skipped span of 2026–2029 reads as the oracle does", () => {
    const wrong: string[] = [];
    for (const change of CHANGES) {
      // The span's wall clocks (repeated or skipped) begin at the change read in the smaller offset.
      const start = change.at + Math.min(change.before, change.after);
      const width = Math.abs(change.after - change.before);
      for (let s = -width; s < 2 * width; s += 60) {
        const local = wallClockOf(start + s);
        const at = zones.localToUnix(local, change.zone);
        if (at !== oracle(local, change.zone).at) wrong.push(`${change.zone} ${local}: ${at}`);
      }
    }
    expect(wrong.slice(0, 5)).toEqual([]);
  });

  test("wallClockAt shows what Intl shows, at any instant in any of the zones", () => {
    fc.assert(
      fc.property(fc.constantFrom(...ZONES, "Asia/Kolkata", "UTC"), fc.integer({ min: unix("2000-01-01T00:00:00Z"), max: unix("2040-01-01T00:00:00Z") }), (zone, at) => {
        expect(zones.wallClockAt(at, zone)).toBe(intlWallClock(at, zone));
      }),
      { numRuns: 2000 },
    );
  });

  test("the repeated autumn hour is the earlier instant: JFK 05:30Z, London 00:30Z, Paris, Sydney, Lord Howe", () => {
    expect(zones.localToUnix("2027-11-07T01:30:00", "America/New_York")).toBe(unix("2027-11-07T05:30:00Z"));
    expect(zones.localToUnix("2027-10-31T01:30:00", "Europe/London")).toBe(unix("2027-10-31T00:30:00Z"));
    expect(zones.localToUnix("2027-10-31T02:30:00", "Europe/Paris")).toBe(unix("2027-10-31T00:30:00Z"));
    expect(zones.localToUnix("2027-04-04T02:30:00", "Australia/Sydney")).toBe(unix("2027-04-03T15:30:00Z"));
    expect(zones.localToUnix("2027-04-04T01:45:00", "Australia/Lord_Howe")).toBe(unix("2027-04-03T14:45:00Z"));
  });

  test("the skipped spring hour moves forward by the gap: an hour in New York, 30 minutes at Lord Howe", () => {
    expect(zones.localToUnix("2027-03-14T02:30:00", "America/New_York")).toBe(unix("2027-03-14T07:30:00Z"));
    expect(zones.wallClockAt(unix("2027-03-14T07:30:00Z"), "America/New_York")).toBe("2027-03-14T03:30:00");
    expect(zones.localToUnix("2027-10-03T02:15:00", "Australia/Lord_Howe")).toBe(unix("2027-10-02T15:45:00Z"));
    expect(zones.wallClockAt(unix("2027-10-02T15:45:00Z"), "Australia/Lord_Howe")).toBe("2027-10-03T02:45:00");
    expect(zones.localToUnix("2026-12-03T18:45:00", "America/New_York")).toBe(unix("2026-12-03T23:45:00Z"));
  });

  test("an unknown zone reads as nothing", () => {
    expect(zones.localToUnix("2027-03-14T02:30:00", "Not/AZone")).toBeUndefined();
    expect(zones.readWallClock("2027-03-14T02:30:00", "Not/AZone")).toBeUndefined();
    expect(zones.wallClockAt(0, "Not/AZone")).toBeUndefined();
  });
});

test("readWallClock keeps its readings: the same time read again is the same answer, and the memo stays bounded", () => {
  const zones = new PackagedTimeZones();
  const first = zones.readWallClock("2027-03-14T02:30:00", "America/New_York");
  expect(first).toEqual({ at: unix("2027-03-14T07:30:00Z"), wallClock: "2027-03-14T03:30:00" });
  // Kept, and kept unchangeable: a caller cannot alter what the next one reads.
  expect(zones.readWallClock("2027-03-14T02:30:00", "America/New_York")).toBe(first!);
  expect(Object.isFrozen(first)).toBe(true);
  expect(zones.readWallClock("2027-03-14T02:30:00", "Not/AZone")).toBeUndefined();
  expect(zones.readWallClock("2027-03-14T02:30:00", "Not/AZone")).toBeUndefined();
  // Thousands of distinct times (a minute each over four days): each read right, the memo never past its bound.
  const memo = (zones as unknown as { readings: Map<string, unknown> }).readings;
  for (let m = 0; m < 6000; m++) {
    const local = new Date(Date.UTC(2027, 10, 5) + m * 60_000).toISOString().slice(0, 19);
    expect(zones.readWallClock(local, "Europe/London")?.at).toBe(zones.localToUnix(local, "Europe/London"));
    expect(memo.size).toBeLessThanOrEqual(4096);
  }
});
