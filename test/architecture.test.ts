import { describe, expect, test } from "bun:test";
import { Glob } from "bun";
import { readFileSync } from "node:fs";
import { dirname, join, normalize } from "node:path";
import { ROOT } from "./support/process";

/** The relative imports of a source file (static, dynamic, type-only, `export … from`), as paths from the root. */
function relativeImports(file: string, text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(/(?:\bfrom|\bimport)\s*\(?\s*["'](\.{1,2}\/[^"']*)["']/g)) out.push(normalize(join(dirname(file), m[1])));
  return out;
}

/**
 * The imports of `file` that cross a boundary. adapters/<room>/… may import its own room, the shared files at the
 * top of adapters/ (adapters/<name>.ts) and domain/; the shared files import no room; domain/ imports only domain/.
 */
function crossings(file: string, text: string): string[] {
  const parts = file.split("/");
  const bad: string[] = [];
  for (const target of relativeImports(file, text)) {
    const t = target.split("/");
    if (parts[0] === "domain") {
      if (t[0] !== "domain") bad.push(`${file} → ${target}`);
      continue;
    }
    const room = parts.length > 2 ? parts[1] : undefined;
    if (t[0] === "src" || (t[0] === "adapters" && t.length > 2 && t[1] !== room) || (t[0] !== "adapters" && t[0] !== "domain")) bad.push(`${file} → ${target}`);
  }
  return bad;
}

function sources(...patterns: string[]): string[] {
  return patterns.flatMap((p) => [...new Glob(p).scanSync(ROOT)]);
}

describe("the architecture's boundaries", () => {
  test("the checker flags each kind of crossing and lets the allowed imports through", () => {
    expect(crossings("adapters/http/x.ts", `import type { A } from "../sqlite/db";`)).toEqual(["adapters/http/x.ts → adapters/sqlite/db"]);
    expect(crossings("adapters/http/core/x.ts", `export { b } from "../../../src/app";`)).toEqual(["adapters/http/core/x.ts → src/app"]);
    expect(crossings("adapters/geo/x.ts", `const m = await import("../delivery/worker");`)).toHaveLength(1);
    expect(crossings("adapters/logging.ts", `import { x } from "./http/errors";`)).toHaveLength(1);
    expect(crossings("domain/fleet/x.ts", `import { y } from "../../adapters/geo/view";`)).toHaveLength(1);
    expect(crossings("adapters/http/core/x.ts", `import { a } from "../errors";\nimport { b } from "../../../domain/ports";\nimport { c } from "../../logging";\nimport { Elysia } from "elysia";`)).toEqual([]);
    expect(crossings("domain/fleet/x.ts", `import { a } from "../geo";`)).toEqual([]);
  });

  test("no adapter imports another adapter's room or src/, and domain/ imports nothing outward", () => {
    const files = sources("adapters/**/*.ts", "domain/**/*.ts");
    expect(files.length).toBeGreaterThan(100);
    const offenders = files.flatMap((f) => crossings(f, readFileSync(join(ROOT, f), "utf8")));
    expect(offenders).toEqual([]);
  });

  test("no source file is over 400 lines", () => {
    const files = sources("src/**/*.ts", "domain/**/*.ts", "adapters/**/*.ts", "adapters/**/*.js");
    const long = files.map((f) => ({ f, lines: readFileSync(join(ROOT, f), "utf8").split("\n").length })).filter((x) => x.lines > 400);
    expect(long).toEqual([]);
  });
});
