import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { POSTGRES_SUITE, SAME_ON_POSTGRES } from "../scripts/test";
import { ROOT } from "./support/process";

/** The modules under test/ that `file` imports, and theirs. */
function testModules(file: string, seen = new Set<string>()): Set<string> {
  for (const m of readFileSync(join(ROOT, file), "utf8").matchAll(/from "(\.[^"]+)"/g)) {
    const target = relative(ROOT, resolve(dirname(join(ROOT, file)), m[1].endsWith(".ts") ? m[1] : `${m[1]}.ts`));
    if (!target.startsWith("test/") || seen.has(target)) continue;
    seen.add(target);
    testModules(target, seen);
  }
  return seen;
}

test("the files the PostgreSQL run leaves out are of its suite and reach no database the run chooses", () => {
  expect(SAME_ON_POSTGRES.length).toBeGreaterThan(0);
  for (const file of SAME_ON_POSTGRES) {
    expect({ file, inSuite: POSTGRES_SUITE.some((p) => file === p || file.startsWith(`${p}/`)) }).toEqual({ file, inSuite: true });
    const modules = [file, ...testModules(file)];
    // The harness and the test cluster's databases are what a test reaches PostgreSQL through on that run.
    expect({ file, reaches: modules.filter((m) => /^test\/support\/(harness|pg-databases)\.ts$/.test(m)) }).toEqual({ file, reaches: [] });
    expect({ file, names: modules.filter((m) => /ON_POSTGRES|DATABASE_URL|TRIPSWITCH_TEST_DB/.test(readFileSync(join(ROOT, m), "utf8"))) }).toEqual({ file, names: [] });
  }
});
