import { readFileSync } from "node:fs";

/** Whether process `pid` runs (a zombie, ended but not yet reaped, counts as gone). */
export function processAlive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z";
  } catch {
    return false;
  }
}

/** Waits up to `timeoutMs` for `check` to hold; returns whether it did. */
export async function waitFor(check: () => boolean, timeoutMs: number): Promise<boolean> {
  for (const end = Date.now() + timeoutMs; Date.now() < end; ) {
    if (check()) return true;
    await Bun.sleep(100);
  }
  return check();
}
