import { migrate, openDatabase } from "../../adapters/sqlite/db";
import { mulberry32 } from "../../src/demo/fleet";

export const TYPES = ["SEDAN", "SUV", "VAN_MINI", "LIMO", "Sédan"];
const NAMES = ["Black Sedan", "Mercédès V-Class", "Lincoln 🚘 Navigator", "", "Coach, 56 seats"];
const WORDS = ["leather", "Wi-Fi", "naïve café", "water\u0000bottle", "tinted;windows", "x\u001fy", "🚐 van"];

/**
 * A migrated database file at `path` with two operators and about `n` generated fleet entries (some
 * inactive, some without a position, awkward text), with gaps in the rowids. Deterministic per seed.
 */
export function writeFleetFile(path: string, n: number, seed: number): string {
  const db = openDatabase(path);
  migrate(db);
  const sqlite = db.$client;
  const random = mulberry32(seed);
  const pick = <T>(items: readonly T[]) => items[Math.floor(random() * items.length)];
  sqlite.exec("INSERT INTO companies (netid, netid_lower, name, co_type, main_email, main_phone, created_at) VALUES ('OP-A', 'op-a', 'A', 'OPERATOR', 'a@example.com', '+1 555 0100', 0), ('OP-B', 'op-b', 'B', 'OPERATOR', 'b@example.com', '+1 555 0101', 0)");
  const insert = sqlite.query(
    "INSERT INTO fleet_entries (slug, netid, type, name, description, image_url, max_passengers, max_luggage, lat, lon, airports, minimum_rate, hourly_rate, currency, active, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'USD', ?, 0, 0)",
  );
  sqlite.transaction(() => {
    for (let i = 0; i < n; i++) {
      const located = random() > 0.05;
      insert.run(
        `op-${i % 2 ? "a" : "b"}-vehicle-${i}`,
        i % 2 ? "OP-A" : "OP-B",
        pick(TYPES),
        pick(NAMES),
        `${pick(WORDS)} ${pick(WORDS)}`,
        random() < 0.3 ? null : `https://img.example/${Math.floor(random() * 5)}.jpg`,
        1 + Math.floor(random() * 8),
        random() < 0.2 ? null : Math.floor(random() * 6),
        located ? -80 + random() * 160 : null,
        located ? -180 + random() * 360 : null,
        pick(["JFK", "JFK,LGA", "", "LHR,LGW,STN"]),
        pick(["0", "75.00", "110.50"]),
        pick(["0", "65.00", "95.25"]),
        random() < 0.1 ? 0 : 1,
      );
    }
  })();
  // Gaps in the rowids (deleted rows), so the halves split by rowid are uneven.
  sqlite.exec("DELETE FROM fleet_entries WHERE rowid % 7 = 3 OR (rowid > 100 AND rowid < 400)");
  sqlite.close();
  return path;
}


/** Seeded searches over a fleet file's spread: wide circles anywhere, sometimes a type, sometimes the word "cafe". */
export function randomGeoSearches(count: number, seed: number) {
  const random = mulberry32(seed);
  return Array.from({ length: count }, (_, i) => ({
    centres: [{ lat: -60 + random() * 120, lon: -180 + random() * 360 }],
    radiusKm: 500 + random() * 5000,
    types: random() < 0.5 ? undefined : [TYPES[i % TYPES.length]],
    words: random() < 0.5 ? [] : ["cafe"],
    offset: 0,
    limit: 20,
  }));
}
