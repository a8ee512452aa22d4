import { describe, expect, test } from "bun:test";
import { Glob } from "bun";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { ROOT } from "../support/process";

describe("domain/ stays pure", () => {
  test("imports nothing from adapters/, src/, Elysia, drizzle or Bun's I/O modules", () => {
    const offenders: string[] = [];
    const files = [...new Glob("domain/**/*.ts").scanSync(ROOT)];
    expect(files.length).toBeGreaterThan(3);
    for (const file of files) {
      const text = readFileSync(join(ROOT, file), "utf8");
      for (const m of text.matchAll(/(?:from|import)\s*\(?\s*["']([^"']+)["']/g)) {
        const spec = m[1];
        if (/(^|\/)(adapters|src)\//.test(spec) || /^(elysia|@elysiajs\/|drizzle-orm|bun:|node:fs|node:net|node:http)/.test(spec)) offenders.push(`${file}: ${spec}`);
      }
    }
    expect(offenders).toEqual([]);
  });
});
