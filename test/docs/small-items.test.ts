import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { ROOT, runCli } from "../support/process";
import { createHarness } from "../support/harness";

const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8"));

describe("the Node.js version", () => {
  /** Whether every Node version our `engines` range admits (its minimum, then each later major) satisfies `theirs`. */
  function admits(theirs: string, ours: string): boolean {
    const min = /(\d+)\.(\d+)\.(\d+)/.exec(ours)!;
    const candidates = [`${min[1]}.${min[2]}.${min[3]}`, ...Array.from({ length: 8 }, (_, i) => `${Number(min[1]) + 1 + i}.0.0`)];
    return candidates.every((v) => !Bun.semver.satisfies(v, ours) || Bun.semver.satisfies(v, theirs));
  }

  test("package.json's engines ask for what every installed package needs (npm ci warns about nothing on it)", () => {
    const ours: string = pkg.engines.node;
    expect(ours).toMatch(/^>=\d+\.\d+\.\d+$/);
    const lock = JSON.parse(readFileSync(join(ROOT, "package-lock.json"), "utf8"));
    const wanting = Object.entries<any>(lock.packages).filter(([path, p]) => path !== "" && typeof p.engines?.node === "string");
    expect(wanting.length).toBeGreaterThan(10);
    const unmet = wanting.filter(([, p]) => !admits(p.engines.node, ours)).map(([path, p]) => `${path}: ${p.engines.node}`);
    expect(unmet).toEqual([]);
    expect(lock.packages[""].engines).toEqual(pkg.engines);
    // The checker itself: >=20 would not do for a package that wants >=22.
    expect(admits(">=22", ">=20.0.0")).toBe(false);
    expect(admits(">=22.12.0 || >=20.19.0 <21.0.0", ">=22.12.0")).toBe(true);
  });

  test("the README says the same version", () => {
    const [, major, minor] = /^>=(\d+)\.(\d+)/.exec(pkg.engines.node)!;
    expect(readFileSync(join(ROOT, "README.md"), "utf8")).toContain(`Node.js ${major}.${minor} or later`);
  });
});

describe("--version", () => {
  test.each(["--version", "-v", "version"])("bun src/main.ts %s prints the package's version", async (flag) => {
    const run = await runCli([flag], {});
    expect(run.code).toBe(0);
    expect(run.stdout).toBe(`tripswitch ${pkg.version}\n`);
  });
  test("the usage names it", async () => {
    expect((await runCli(["--help"], {})).stdout).toContain("--version");
  });
});

describe("the favicon", () => {
  const h = createHarness();
  test("/favicon.svg and /favicon.ico answer the service's SVG icon", async () => {
    for (const path of ["/favicon.svg", "/favicon.ico"]) {
      const res = await h.request("GET", path);
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toBe("image/svg+xml");
      expect(res.text).toStartWith("<svg xmlns=\"http://www.w3.org/2000/svg\"");
    }
  });
  test("the console's page and the docs page link it", async () => {
    for (const path of ["/console", "/docs"]) {
      const res = await h.request("GET", path);
      expect(res.status).toBe(200);
      expect(res.text).toMatch(/<link rel="icon" type="image\/svg\+xml" href="\/favicon\.svg"( \/)?>\s*(\n.*)*<\/head>/);
    }
  });
  test("is not an operation of the OpenAPI document", async () => {
    const doc = (await h.request("GET", "/docs/json")).body;
    expect(Object.keys(doc.paths).filter((p) => p.includes("favicon") || p.includes("postman"))).toEqual([]);
  });
});

describe("the console's counts", () => {
  test("count() puts the noun in the right number", async () => {
    const dom: { count: (n: number, one: string, many?: string) => string } = await import(join(ROOT, "adapters/console/assets/dom.js"));
    expect(dom.count(1, "booking")).toBe("1 booking");
    expect(dom.count(0, "booking")).toBe("0 bookings");
    expect(dom.count(2, "booking")).toBe("2 bookings");
    expect(dom.count(1, "entry", "entries")).toBe("1 entry");
    expect(dom.count(7, "entry", "entries")).toBe("7 entries");
  });

  test("no console text puts a number straight before a plural noun", () => {
    const dir = join(ROOT, "adapters/console/assets");
    const offenders = readdirSync(dir)
      .filter((f) => f.endsWith(".js"))
      .flatMap((f) => readFileSync(join(dir, f), "utf8").split("\n").map((line, i) => ({ where: `${f}:${i + 1}`, line })))
      .filter(({ line }) => /\$\{[^}]*\}\s(bookings|entries|vehicles|partnerships|deliveries|changes|rows|options|positions|errors)\b/.test(line))
      .map(({ where }) => where);
    expect(offenders).toEqual([]);
  });
});
