import { describe, expect, test } from "bun:test";
import { Glob } from "bun";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { ROOT } from "../support/process";
import { anchors } from "../support/markdown";

// The repository explains itself: code, tests, benchmarks and the OpenAPI prose point at the sections of docs/ that
// state the rules they rely on (`docs/terms.md#the-cascade-fallback`), never at a document the repository does not
// hold. These tests keep every such pointer resolvable. (The section sign is written \u00a7 here, so that this file
// passes its own test.)

/** Source, test, bench and script files, and the docs (where a pointer to another page is a link, not a path). */
function sourceFiles(): string[] {
  const patterns = ["src/**/*.ts", "domain/**/*.ts", "adapters/**/*.{ts,js,html,css}", "test/**/*.ts", "bench/**/*.ts", "scripts/**/*.{ts,sh}"];
  return patterns.flatMap((p) => [...new Glob(p).scanSync(ROOT)]);
}

/** Every `docs/<page>.md` or `docs/<page>.md#<anchor>` a text names. */
export function docPointers(text: string): string[] {
  return [...text.matchAll(/\bdocs\/([a-z0-9-]+\.md)(#[\p{L}\p{N}_-]+)?/gu)].map((m) => `docs/${m[1]}${m[2] ?? ""}`);
}

/** Why a pointer does not resolve, or undefined when the page (and its heading) exists. */
export function pointerProblem(pointer: string): string | undefined {
  const [path, hash] = pointer.split("#", 2);
  if (!existsSync(join(ROOT, path))) return `${path} does not exist`;
  if (hash !== undefined && !anchors(readFileSync(join(ROOT, path), "utf8")).has(hash)) return `${path} has no heading #${hash}`;
  return undefined;
}

/** A reference to a numbered section of a document outside the repository: the contract's section sign and number. */
export const OUTSIDE_SECTION = /CONTRACT\s*\u00a7|\u00a7\s*\d|CONTRACT fine\s+point/;

describe("pointers into docs/", () => {
  test("the checkers find pointers, a missing page, a missing heading and an outside section reference", () => {
    expect(docPointers("see docs/terms.md#the-cascade-fallback, and docs/rates.md.")).toEqual(["docs/terms.md#the-cascade-fallback", "docs/rates.md"]);
    expect(pointerProblem("docs/terms.md#the-cascade-fallback")).toBeUndefined();
    expect(pointerProblem("docs/terms.md#no-such-heading")).toContain("no heading");
    expect(pointerProblem("docs/nope.md")).toContain("does not exist");
    expect(OUTSIDE_SECTION.test("the cascade (CONTRACT \u00a720.4)")).toBe(true);
    expect(OUTSIDE_SECTION.test("acceptBy (\u00a720.3)")).toBe(true);
    expect(OUTSIDE_SECTION.test("acceptBy (docs/terms.md#the-acceptance-deadline-acceptby)")).toBe(false);
  });

  test("every docs/ page and heading that code, tests, benchmarks and scripts point at exists", () => {
    // The checkers' own tests name missing pages on purpose.
    const files = sourceFiles().filter((f) => !f.startsWith("test/docs/"));
    expect(files.length).toBeGreaterThan(300);
    const broken = files.flatMap((f) =>
      docPointers(readFileSync(join(ROOT, f), "utf8")).flatMap((p) => {
        const why = pointerProblem(p);
        return why ? [`${f}: ${p} (${why})`] : [];
      }),
    );
    expect(broken).toEqual([]);
  });

  test("nothing in the repository cites a section of a document it does not hold", () => {
    const files = [...sourceFiles(), "README.md", ...[...new Glob("docs/*.md").scanSync(ROOT)]];
    const citing = files.flatMap((f) =>
      readFileSync(join(ROOT, f), "utf8")
        .split("\n")
        .flatMap((line, i) => (OUTSIDE_SECTION.test(line) ? [`${f}:${i + 1}`] : [])),
    );
    expect(citing).toEqual([]);
  });
});
