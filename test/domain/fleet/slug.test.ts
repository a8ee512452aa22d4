import { describe, expect, test } from "bun:test";
import { firstFreeSlug, slugBase } from "../../../domain/fleet/slug";

describe("fleet slugs", () => {
  test("come from netid and name: lower-case, accent-free, hyphenated", () => {
    expect(slugBase("ACME-LIMO", "Cadillac Escalade")).toBe("acme-limo-cadillac-escalade");
    expect(slugBase("EUROCHAUFFEUR", "Mercédès Classe S — Élysée")).toBe("eurochauffeur-mercedes-classe-s-elysee");
    expect(slugBase("X_1", "  !!  ")).toBe("x-1");
  });

  test("are bounded in length", () => {
    expect(slugBase("ACME", "a".repeat(500)).length).toBeLessThanOrEqual(80);
  });

  test("take a numeric suffix on collision", () => {
    expect(firstFreeSlug("acme-suv", new Set())).toBe("acme-suv");
    expect(firstFreeSlug("acme-suv", new Set(["acme-suv"]))).toBe("acme-suv-2");
    expect(firstFreeSlug("acme-suv", new Set(["acme-suv", "acme-suv-2", "acme-suv-3"]))).toBe("acme-suv-4");
  });
});
