import { describe, expect, test } from "bun:test";
import { appliedLimit, parseFleetSearchQuery, scoreOf } from "../../../domain/fleet/search";
import { ValidationError } from "../../../domain/errors";
import { matchesAllWords, normalizeText, queryWords, searchTextOf } from "../../../domain/fleet/text";

function failing(raw: Record<string, string>): string[] {
  try {
    parseFleetSearchQuery(raw);
    return [];
  } catch (error) {
    if (!(error instanceof ValidationError)) throw error;
    return error.errors.map((e) => e.field);
  }
}

describe("fleet search parameters", () => {
  test("defaults: radius 50, limit 20, offset 0; airports trimmed, upper-cased, de-duplicated", () => {
    const q = parseFleetSearchQuery({ airports: " jfk, LGA,,jfk " });
    expect(q).toEqual({ airports: ["JFK", "LGA"], position: undefined, types: undefined, words: [], radiusKm: 50, limit: 20, offset: 0 });
  });

  test("each bad parameter is named", () => {
    expect(failing({})).toEqual(["airports"]);
    expect(failing({ lat: "40" })).toEqual(["lon"]);
    expect(failing({ lon: "40" })).toEqual(["lat"]);
    expect(failing({ lat: "91", lon: "0" })).toEqual(["lat"]);
    expect(failing({ lat: "0", lon: "-181" })).toEqual(["lon"]);
    expect(failing({ lat: "north", lon: "1e400" })).toEqual(["lat", "lon"]);
    expect(failing({ airports: "JFK", radius_km: "0" })).toEqual(["radius_km"]);
    expect(failing({ airports: "JFK", radius_km: "-5" })).toEqual(["radius_km"]);
    expect(failing({ airports: "JFK", radius_km: "1000.5" })).toEqual(["radius_km"]);
    expect(failing({ airports: "JFK", limit: "0" })).toEqual(["limit"]);
    expect(failing({ airports: "JFK", limit: "101" })).toEqual(["limit"]);
    expect(failing({ airports: "JFK", limit: "2.5" })).toEqual(["limit"]);
    expect(failing({ airports: "JFK", offset: "-1" })).toEqual(["offset"]);
    expect(failing({ airports: Array.from({ length: 26 }, (_, i) => `A${String.fromCharCode(65 + (i % 26))}${i}`).join(",") })).toEqual(["airports"]);
    expect(failing({ airports: "JFK", radius_km: "1000", limit: "100" })).toEqual([]);
  });

  test("the limit is honoured from PROFESSIONAL up; FREE gets 20", () => {
    expect(appliedLimit("FREE", 5)).toBe(20);
    expect(appliedLimit("PROFESSIONAL", 5)).toBe(5);
    expect(appliedLimit("ENTERPRISE", 100)).toBe(100);
  });

  test("score is 1 − distance / radius, 4 decimals", () => {
    expect(scoreOf(0, 50)).toBe(1);
    expect(scoreOf(12.345678, 50)).toBe(0.7531);
    expect(scoreOf(50, 50)).toBe(0);
  });
});

describe("search text", () => {
  test("every word, case- and accent-insensitive, as a substring of name + description + type", () => {
    const text = searchTextOf({ name: "Mercédès Classe S", description: "Cuir, Wi-Fi", type: "SEDAN_LUXURY" });
    expect(matchesAllWords(text, queryWords("MERCEDES cuir"))).toBe(true);
    expect(matchesAllWords(text, queryWords("sedan_lux wi-fi"))).toBe(true);
    expect(matchesAllWords(text, queryWords("mercedes leather"))).toBe(false);
    expect(matchesAllWords(text, queryWords("   "))).toBe(true);
  });

  test("ASCII text takes a short cut to the same normalised form as every other text", () => {
    const full = (text: string) => text.normalize("NFKD").replace(/\p{M}+/gu, "").toLowerCase();
    // Every ASCII character, alone and in a mixed-case sentence; then texts just past ASCII.
    const ascii = Array.from({ length: 128 }, (_, c) => String.fromCharCode(c));
    for (const text of [...ascii, ascii.join(""), "Black Audi A6 near BOS; leather seats.", ""]) expect(normalizeText(text)).toBe(full(text));
    for (const text of ["Mercédès", "ﬁat Ｔｅｓｌａ", "Ångström\u0080", "İstanbul", "Œuvre ½"]) expect(normalizeText(text)).toBe(full(text));
    expect(normalizeText("Mercédès ＳＵＶ")).toBe("mercedes suv");
  });
});
