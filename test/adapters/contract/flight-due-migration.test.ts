// The migration that lets the flight-status poller find bookings by their flight's landing
// (docs/flights.md#the-flight-status-poller), run on bookings stored before it: each live booking whose flight has a
// known schedule and has not landed gets `flight_due` (its latest estimate, else its schedule), as
// domain/trips/flights.ts:flightDue derives it on every write; every other booking keeps null. On both databases.
import { describe, expect, test } from "bun:test";
import type { Booking } from "../../../domain/trips/booking";
import { flightDue } from "../../../domain/trips/flights";
import { migrate as migrateSqlite } from "../../../adapters/sqlite/db";
import { migrations as sqliteMigrations } from "../../../adapters/sqlite/migrations";
import { migrate as migratePostgres } from "../../../adapters/postgres/db";
import { migrations as pgMigrations } from "../../../adapters/postgres/migrations";
import { bookingInsert, postgresBefore, sqliteBefore } from "../../support/migrations";
import { newBooking } from "./trips-fixtures";

const NEW_TAG = /flight_due$/;
const oldRowInsert = (b: Booking, placeholder: "?" | "$") => bookingInsert(b, placeholder, ["flightDue"]);
const LANDING = 1_800_090_000;
const flightPickup = { address: "JFK", locationType: "airport", flightInfo: { airlineCode: "BA", flightNumber: "117" } };
const withFlight = (over: Partial<Booking>, flight: NonNullable<Booking["flight"]>) => {
  const b = newBooking(over);
  return { ...b, trip: { ...b.trip, locations: { pickup: flightPickup } }, flight } satisfies Booking;
};

/** Bookings as they were stored before the migration, and the flight_due each must get. */
function oldData() {
  const scheduled = { scheduledLanding: LANDING, pickupOffsetMinutes: 45, originalPickup: LANDING + 2700 };
  const bookings = {
    scheduled: withFlight({}, scheduled),
    estimated: withFlight({ status: "ASSIGNED" }, { ...scheduled, estimatedLanding: LANDING + 1800 }),
    landed: withFlight({}, { ...scheduled, estimatedLanding: LANDING + 1800, landedAt: LANDING + 1500 }),
    unknownSchedule: withFlight({}, { originalPickup: LANDING + 2700 }),
    ended: withFlight({ status: "CANCEL" }, scheduled),
    onBoard: withFlight({ status: "PASSENGER_ON_BOARD" }, scheduled),
    noFlight: newBooking(),
  } satisfies Record<string, Booking>;
  const expected = Object.fromEntries(Object.values(bookings).map((b) => [b.transactionId, flightDue(b)]));
  return { bookings, expected };
}

const DUE = "SELECT transaction_id AS id, flight_due AS due FROM bookings";
const dueOf = (rows: Array<{ id: string; due: number | string | null }>) =>
  Object.fromEntries(rows.map((r) => [r.id, r.due === null ? null : Number(r.due)]));

describe("the flight_due migration on existing data", () => {
  test("the derivation itself: live and scheduled, not landed → its estimate or schedule; else null", () => {
    const { bookings, expected } = oldData();
    expect(Object.fromEntries(Object.entries(bookings).map(([name, b]) => [name, expected[b.transactionId]]))).toEqual({
      scheduled: LANDING,
      estimated: LANDING + 1800,
      landed: null,
      unknownSchedule: null,
      ended: null,
      onBoard: null,
      noFlight: null,
    });
  });

  test("SQLite: every booking gets the flight_due its next write would give it", () => {
    const { db, until } = sqliteBefore(NEW_TAG);
    const sqlite = db.$client;
    const { bookings, expected } = oldData();
    for (const b of Object.values(bookings)) sqlite.query(oldRowInsert(b, "?")[0]).run(...(oldRowInsert(b, "?")[1] as never[]));
    expect(migrateSqlite(db)).toContain(sqliteMigrations[until].tag);
    expect(dueOf(sqlite.query(DUE).all() as never)).toEqual(expected);
    sqlite.close();
  });

  describe("PostgreSQL", () => {
    const postgres = postgresBefore(NEW_TAG);

    test("the same flight_due", async () => {
      const { db, until } = await postgres.start();
      const client = db.$client;
      const { bookings, expected } = oldData();
      for (const b of Object.values(bookings)) await client.unsafe(...oldRowInsert(b, "$"));
      expect(await migratePostgres(client)).toContain(pgMigrations[until].tag);
      expect(dueOf(await client.unsafe(DUE))).toEqual(expected);
    }, 120_000);
  });
});
