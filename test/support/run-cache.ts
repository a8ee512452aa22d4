import { existsSync, mkdirSync, mkdtempSync, renameSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/**
 * What one run of the suite makes once and every test process of it reuses (the seeded demo database the console's
 * browser tests copy). `npm test` (scripts/test.ts) names the run's directory in TRIPSWITCH_TEST_RUN_DIR and removes
 * it when the run ends; a `bun test` started otherwise keeps one directory per process, removed when it exits. Never
 * shared between runs: what a run reuses was made by the code it tests.
 */
let own: string | undefined;
function runDir(): string {
  const shared = process.env.TRIPSWITCH_TEST_RUN_DIR;
  if (shared) {
    mkdirSync(shared, { recursive: true });
    return shared;
  }
  if (!own) {
    const dir = (own = mkdtempSync(join(tmpdir(), "tripswitch-test-run-")));
    process.on("exit", () => rmSync(dir, { recursive: true, force: true }));
  }
  return own;
}

const making = new Map<string, Promise<string>>();

/**
 * The directory `key` names in the run's directory, made once by `make` (into a temporary directory then renamed into
 * place, so a half-made one is never used; processes that make it at the same moment each make their own and the
 * first rename wins). Whoever uses it copies it: it is never changed after it is made.
 */
export function madeOnce(key: string, make: (dir: string) => Promise<void>): Promise<string> {
  let made = making.get(key);
  if (!made) {
    made = makeInRunDir(key, make);
    making.set(key, made);
    made.catch(() => making.delete(key));
  }
  return made;
}

async function makeInRunDir(key: string, make: (dir: string) => Promise<void>): Promise<string> {
  const root = runDir();
  const target = join(root, key);
  if (existsSync(target)) return target;
  const temp = mkdtempSync(join(root, `${key}.making-`));
  try {
    await make(temp);
    renameSync(temp, target);
  } catch (e) {
    rmSync(temp, { recursive: true, force: true });
    // Another process renamed its own into place first: the same content.
    if (!existsSync(target)) throw e;
  }
  return target;
}
