import { describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { anchors } from "../support/markdown";
import { ROOT } from "../support/process";

/** README.md and every docs/*.md, as paths relative to the repository. */
export function documentationFiles(): string[] {
  return ["README.md", ...readdirSync(join(ROOT, "docs")).filter((f) => f.endsWith(".md")).map((f) => `docs/${f}`)];
}

/** The text outside fenced code blocks and inline code (where a `[x](y)` is not a link). */
function prose(markdown: string): string {
  return markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, "").replace(/`[^`\n]*`/g, "");
}

/** Every markdown link target (inline `[t](target)` and reference definitions) in the prose of a file. */
export function linkTargets(markdown: string): string[] {
  const text = prose(markdown);
  const targets: string[] = [];
  for (const m of text.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) targets.push(m[1]);
  for (const m of text.matchAll(/^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+.*)?$/gm)) targets.push(m[1]);
  for (const m of text.matchAll(/<(https?:\/\/[^>\s]+)>/g)) targets.push(m[1]);
  return targets;
}

/** Why a link target from `file` is broken, or undefined when it resolves inside the repository. */
function problem(file: string, target: string): string | undefined {
  if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith("//")) return "points outside the repository";
  const [pathPart, hash] = target.split("#", 2);
  const path = pathPart === "" ? join(ROOT, file) : resolve(join(ROOT, dirname(file)), decodeURIComponent(pathPart));
  const rel = relative(ROOT, path);
  if (rel.startsWith("..") || resolve(ROOT, rel) !== path) return "points outside the repository";
  if (!existsSync(path)) return `${rel} does not exist`;
  if (hash !== undefined) {
    if (!statSync(path).isFile() || !path.endsWith(".md")) return `an anchor into ${rel}, which is not a markdown file`;
    if (!anchors(readFileSync(path, "utf8")).has(decodeURIComponent(hash))) return `${rel} has no heading #${hash}`;
  }
  return undefined;
}

describe("documentation links", () => {
  const files = documentationFiles();

  test("the documentation is README.md plus docs/*.md, and the README stays short", () => {
    expect(files).toContain("docs/integration.md");
    expect(readFileSync(join(ROOT, "README.md"), "utf8").split("\n").length).toBeLessThanOrEqual(300);
  });

  test.each(files)("every link in %s resolves inside the repository", (file) => {
    const markdown = readFileSync(join(ROOT, file), "utf8");
    const broken = linkTargets(markdown)
      .map((target) => ({ target, why: problem(file, target) }))
      .filter((l) => l.why !== undefined);
    expect(broken).toEqual([]);
  });

  test.each(files)("%s names no path outside the repository", (file) => {
    const markdown = readFileSync(join(ROOT, file), "utf8");
    expect(markdown).not.toMatch(/\.\.\/shared|\bCONTRACT\.md\b|service-spec\.md/);
  });

  test("the checker itself finds a broken file, a broken anchor and an outside link", () => {
    expect(problem("README.md", "docs/nope.md")).toContain("does not exist");
    expect(problem("README.md", "docs/integration.md#no-such-heading")).toContain("no heading");
    expect(problem("README.md", "docs/integration.md#credentials")).toBeUndefined();
    expect(problem("docs/gnet.md", "../README.md#a-five-minute-tour")).toBeUndefined();
    expect(problem("docs/gnet.md", "../../shared/CONTRACT.md")).toBe("points outside the repository");
    expect(problem("README.md", "https://example.com/")).toBe("points outside the repository");
    expect(linkTargets("see [a](b.md#c) and `[x](y)`\n```\n[z](w)\n```\n[ref]: d.md")).toEqual(["b.md#c", "d.md"]);
    expect([...anchors("# A `b` c\n## What changed, for existing clients?\n## A b c")]).toEqual(["a-b-c", "what-changed-for-existing-clients", "a-b-c-1"]);
  });
});
