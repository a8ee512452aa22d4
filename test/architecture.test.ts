import { describe, expect, test } from "bun:test";
import { Glob } from "bun";
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, normalize } from "node:path";
import { ROOT } from "./support/process";

/** The relative imports of a source file (static, dynamic, type-only, `export … from`), as paths from the root. */
function relativeImports(file: string, text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(/(?:\bfrom|\bimport)\s*\(?\s*["'](\.{1,2}\/[^"']*)["']/g)) out.push(normalize(join(dirname(file), m[1])));
  return out;
}

/** What lies at the top of adapters/: the rooms (folders) and the loose shared files. */
const ADAPTERS_TOP = readdirSync(join(ROOT, "adapters"), { withFileTypes: true });
const ROOMS = new Set(ADAPTERS_TOP.filter((e) => e.isDirectory()).map((e) => e.name));

/**
 * The imports of `file` that cross a boundary. adapters/<room>/… may import its own room, adapters/sql/ (the one
 * shared folder), the shared files at the top of adapters/ (adapters/<name>.ts) and domain/; adapters/sql/ imports
 * only itself and domain/; the shared files import no room (sql/ included); domain/ imports only domain/.
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
    // A package's data file named by its path (its package exports no such subpath) is a package import, not a room.
    const packageFile = t[0] === "node_modules";
    // The room a target lies in (`../postgres` names the room's index); undefined for a shared file at the top.
    const into = t[0] === "adapters" && (t.length > 2 || ROOMS.has(t[1])) ? t[1] : undefined;
    const otherRoom = into !== undefined && into !== room && !(into === "sql" && room !== undefined);
    const sqlOut = room === "sql" && t[0] === "adapters" && into !== "sql";
    if (t[0] === "src" || otherRoom || sqlOut || (t[0] !== "adapters" && t[0] !== "domain" && !packageFile)) bad.push(`${file} → ${target}`);
  }
  return bad;
}

function sources(...patterns: string[]): string[] {
  return patterns.flatMap((p) => [...new Glob(p).scanSync(ROOT)]);
}

/** A module's name: its path without the extension (`domain/trips/ports`), as an import names it. */
const moduleOf = (path: string) => path.replace(/\.(ts|js)$/, "").replace(/\/index$/, "");

/**
 * An import cycle among `files` (path → source text), counting every relative import (type-only, `export … from`,
 * dynamic): the modules walked round it, the first named again at the end; undefined when there is none.
 */
function importCycle(files: ReadonlyMap<string, string>): string[] | undefined {
  const edges = new Map<string, string[]>();
  for (const [file, text] of files) edges.set(moduleOf(file), relativeImports(file, text).map(moduleOf));
  // Depth first: a module met again while it is still on the path closes a cycle.
  const state = new Map<string, "open" | "done">();
  const path: string[] = [];
  const visit = (m: string): string[] | undefined => {
    state.set(m, "open");
    path.push(m);
    for (const next of edges.get(m) ?? []) {
      if (!edges.has(next) || state.get(next) === "done") continue;
      if (state.get(next) === "open") return [...path.slice(path.indexOf(next)), next];
      const found = visit(next);
      if (found) return found;
    }
    path.pop();
    state.set(m, "done");
    return undefined;
  };
  for (const m of [...edges.keys()].sort()) if (!state.has(m)) {
    const found = visit(m);
    if (found) return found;
  }
  return undefined;
}

/** The imports of a use case (domain/usecases/) by `file`: only src/, adapters/ and other use cases may import one. */
function useCaseImports(file: string, text: string): string[] {
  if (file.startsWith("src/") || file.startsWith("adapters/") || file.startsWith("domain/usecases/")) return [];
  return relativeImports(file, text).filter((t) => t.startsWith("domain/usecases/")).map((t) => `${file} → ${t}`);
}

const texts = (files: string[]) => new Map(files.map((f) => [f, readFileSync(join(ROOT, f), "utf8")]));

describe("the architecture's boundaries", () => {
  test("the checker flags each kind of crossing and lets the allowed imports through", () => {
    expect(crossings("adapters/http/x.ts", `import type { A } from "../sqlite/db";`)).toEqual(["adapters/http/x.ts → adapters/sqlite/db"]);
    expect(crossings("adapters/http/core/x.ts", `export { b } from "../../../src/app";`)).toEqual(["adapters/http/core/x.ts → src/app"]);
    expect(crossings("adapters/geo/x.ts", `const m = await import("../delivery/worker");`)).toHaveLength(1);
    expect(crossings("adapters/logging.ts", `import { x } from "./http/errors";`)).toHaveLength(1);
    expect(crossings("domain/fleet/x.ts", `import { y } from "../../adapters/geo/view";`)).toHaveLength(1);
    expect(crossings("adapters/http/core/x.ts", `import { a } from "../errors";\nimport { b } from "../../../domain/ports";\nimport { c } from "../../logging";\nimport { Elysia } from "elysia";`)).toEqual([]);
    expect(crossings("domain/fleet/x.ts", `import { a } from "../geo";`)).toEqual([]);
    // adapters/sql/: any room may import it; it imports only itself and domain/.
    expect(crossings("adapters/sqlite/x.ts", `import { a } from "../sql/x";`)).toEqual([]);
    expect(crossings("adapters/sql/x.ts", `import { a } from "./y";\nimport type { B } from "../../domain/ports";`)).toEqual([]);
    expect(crossings("adapters/sql/x.ts", `import { y } from "../sqlite/y";`)).toEqual(["adapters/sql/x.ts → adapters/sqlite/y"]);
    expect(crossings("adapters/sql/x.ts", `import { log } from "../logging";`)).toHaveLength(1);
    expect(crossings("adapters/http/x.ts", `import { p } from "../postgres";`)).toEqual(["adapters/http/x.ts → adapters/postgres"]);
    expect(crossings("adapters/runtime.ts", `import { x } from "./sql/x";`)).toHaveLength(1);
  });

  test("no adapter imports another adapter's room or src/, and domain/ imports nothing outward", () => {
    const files = sources("adapters/**/*.ts", "domain/**/*.ts");
    expect(files.length).toBeGreaterThan(100);
    const offenders = files.flatMap((f) => crossings(f, readFileSync(join(ROOT, f), "utf8")));
    expect(offenders).toEqual([]);
  });

  test("at most 4 loose source files lie at the top of adapters/ (shared SQL goes in adapters/sql/)", () => {
    expect(ADAPTERS_TOP.filter((e) => e.isFile() && /\.(ts|js)$/.test(e.name)).length).toBeLessThanOrEqual(4);
  });

  test("the cycle checker finds a planted cycle, type-only, re-export and dynamic imports included, and passes a tree", () => {
    const planted = new Map([
      ["domain/trips/a.ts", `import type { B } from "./b";`],
      ["domain/trips/b.ts", `export { c } from "../events/c";`],
      ["domain/events/c.ts", `const a = await import("../trips/a");`],
      ["domain/events/d.ts", `import { a } from "../trips/a";`],
    ]);
    expect(importCycle(planted)).toEqual(["domain/events/c", "domain/trips/a", "domain/trips/b", "domain/events/c"]);
    planted.set("domain/events/c.ts", `import { e } from "./e";\nimport { f } from "../shared/f";`);
    expect(importCycle(planted)).toBeUndefined();
    expect(importCycle(new Map([["domain/x.ts", `import { x } from "./x";`]]))).toEqual(["domain/x", "domain/x"]);
  });

  test("domain/ has no import cycle", () => {
    const files = sources("domain/**/*.ts");
    expect(files.length).toBeGreaterThan(50);
    expect(importCycle(texts(files))).toBeUndefined();
  });

  test("the use-case checker flags a use case imported from below and lets src/, adapters/ and use cases import one", () => {
    expect(useCaseImports("domain/trips/x.ts", `import type { Y } from "../usecases/send-trip";`)).toEqual(["domain/trips/x.ts → domain/usecases/send-trip"]);
    expect(useCaseImports("domain/ports.ts", `export { y } from "./usecases/login";`)).toHaveLength(1);
    expect(useCaseImports("domain/usecases/x.ts", `import { y } from "./send-trip";`)).toEqual([]);
    expect(useCaseImports("adapters/http/core/x.ts", `import { y } from "../../../domain/usecases/send-trip";`)).toEqual([]);
    expect(useCaseImports("src/app.ts", `import { y } from "../domain/usecases/send-trip";`)).toEqual([]);
  });

  test("only src/, adapters/ and other use cases import domain/usecases/", () => {
    const files = sources("domain/**/*.ts");
    const offenders = files.flatMap((f) => useCaseImports(f, readFileSync(join(ROOT, f), "utf8")));
    expect(offenders).toEqual([]);
  });

  test("no source file is over 400 lines", () => {
    const files = sources("src/**/*.ts", "domain/**/*.ts", "adapters/**/*.ts", "adapters/**/*.js");
    const long = files.map((f) => ({ f, lines: readFileSync(join(ROOT, f), "utf8").split("\n").length })).filter((x) => x.lines > 400);
    expect(long).toEqual([]);
  });

  test("the composition root reads like a table of contents: main.ts ≤ 150 lines, createServices ≤ 80, no src/ file of 300", () => {
    const lines = (f: string) => readFileSync(join(ROOT, f), "utf8").replace(/\n$/, "").split("\n");
    expect(lines("src/main.ts").length).toBeLessThanOrEqual(150);
    expect(sources("src/**/*.ts").filter((f) => lines(f).length >= 300)).toEqual([]);
    const services = lines("src/services.ts");
    const start = services.findIndex((l) => l.startsWith("export function createServices("));
    const end = services.findIndex((l, i) => i > start && l === "}");
    expect(start).toBeGreaterThanOrEqual(0);
    expect(end - start + 1).toBeLessThanOrEqual(80);
  });

  test("no source line is over 160 characters", () => {
    const files = sources("src/**/*.ts", "domain/**/*.ts", "adapters/**/*.ts", "adapters/**/*.js");
    const long = files.flatMap((f) => {
      const lines = readFileSync(join(ROOT, f), "utf8").split("\n");
      return lines.flatMap((line, i) => (line.length > MAX_LINE ? [`${f}:${i + 1} (${line.length} characters)`] : []));
    });
    expect(long).toEqual([]);
  });
});

const MAX_LINE = 160;

/**
 * The pairs of domain/ folders (domain/<folder>/…; the files at the top of domain/ are in no folder) whose files
 * import each other both ways, counting every relative import: "a ↔ b", a before b, sorted.
 */
function mutualFolderPairs(files: ReadonlyMap<string, string>): string[] {
  const folderOf = (module: string) => {
    const t = module.split("/");
    return t[0] === "domain" && t.length > 2 ? t[1] : undefined;
  };
  const links = new Set<string>();
  for (const [file, text] of files) {
    const from = folderOf(file);
    for (const target of relativeImports(file, text)) {
      const to = folderOf(target);
      if (from !== undefined && to !== undefined && from !== to) links.add(`${from} ${to}`);
    }
  }
  const both = [...links].filter((l) => {
    const [a, b] = l.split(" ");
    return a < b && links.has(`${b} ${a}`);
  });
  return both.map((l) => l.replace(" ", " ↔ ")).sort();
}

/** Pairs of domain/ folders allowed to import each other both ways (issue 44: trips with tracking, events and delivery). */
const MAX_MUTUAL_FOLDER_PAIRS = 3;

describe("domain/ folders importing each other", () => {
  test("the pair counter finds folders importing each other both ways, type-only, re-export and dynamic imports included", () => {
    const planted = new Map([
      ["domain/trips/a.ts", `import type { B } from "../fleet/b";\nimport { e } from "../errors";`],
      ["domain/fleet/b.ts", `export { c } from "../trips/c";`],
      ["domain/events/d.ts", `const a = await import("../trips/a");\nimport { e } from "../errors";`],
      ["domain/errors.ts", `import { d } from "./events/d";`],
      ["domain/pricing/p.ts", `import { a } from "../trips/a";\nimport { q } from "./q";`],
    ]);
    expect(mutualFolderPairs(planted)).toEqual(["fleet ↔ trips"]);
    planted.set("domain/trips/c.ts", `import type { D } from "../events/d";`);
    expect(mutualFolderPairs(planted)).toEqual(["events ↔ trips", "fleet ↔ trips"]);
  });

  test(`at most ${MAX_MUTUAL_FOLDER_PAIRS} pairs of domain/ folders import each other both ways`, () => {
    const files = sources("domain/**/*.ts");
    expect(files.length).toBeGreaterThan(50);
    const pairs = mutualFolderPairs(texts(files));
    expect(pairs.length <= MAX_MUTUAL_FOLDER_PAIRS ? [] : pairs).toEqual([]);
  });
});

/** The lines of `function name(` in `text` through its body's closing brace (the body's `{` ends a line; a return type's does not). */
function functionLines(text: string, name: string): number | undefined {
  const at = text.search(new RegExp(`\\bfunction ${name}\\(`));
  let depth = 0;
  if (at >= 0)
    for (let i = text.indexOf("{\n", at); i >= 0 && i < text.length; i++)
      if (text[i] === "{") depth++;
      else if (text[i] === "}" && --depth === 0) return text.slice(at, i + 1).split("\n").length;
  return undefined;
}

test("rankCircle and validateRateCard read as their parts: they and every function beside them are at most 120 lines", () => {
  expect(functionLines("x\nfunction f(a: { b: 1 }): { c: string } {\n  if (a) {\n    return { c: `${a.b}` };\n  }\n}\n", "f")).toBe(5);
  const long: string[] = [];
  for (const name of ["rankCircle", "validateRateCard"]) {
    // Found by name, wherever domain/ keeps it.
    const files = sources("domain/**/*.ts").filter((f) => readFileSync(join(ROOT, f), "utf8").includes(`function ${name}(`));
    expect(files).toHaveLength(1);
    const text = readFileSync(join(ROOT, files[0]), "utf8");
    const names = [...text.matchAll(/^(?:export )?function (\w+)\(/gm)].map((m) => m[1]);
    expect(names).toContain(name);
    expect(names.length).toBeGreaterThanOrEqual(6);
    for (const fn of names) if ((functionLines(text, fn) ?? Infinity) > 120) long.push(`${files[0]}: ${fn} (${functionLines(text, fn)} lines)`);
  }
  expect(long).toEqual([]);
});
