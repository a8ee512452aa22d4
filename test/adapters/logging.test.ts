import { describe, expect, test } from "bun:test";
import { join } from "node:path";

const BUN = join(import.meta.dir, "../../node_modules/.bin/bun");
const CHILD = join(import.meta.dir, "../support/log-child.ts");

/** Runs test/support/log-child.ts: its stdout lines (parsed) with the time each arrived, and when each stderr word arrived. */
async function run(...args: string[]) {
  const proc = Bun.spawn([BUN, CHILD, ...args], { stdout: "pipe", stderr: "pipe" });
  const started = performance.now();
  const read = async (stream: ReadableStream<Uint8Array>, onLine: (line: string, at: number) => void) => {
    const decoder = new TextDecoder();
    let text = "";
    const reader = stream.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
      const parts = text.split("\n");
      text = parts.pop()!;
      for (const line of parts) onLine(line, performance.now() - started);
    }
  };
  const lines: Array<{ at: number; value: any }> = [];
  const markers: Record<string, number> = {};
  await Promise.all([read(proc.stdout, (line, at) => lines.push({ at, value: JSON.parse(line) })), read(proc.stderr, (line, at) => (markers[line.trim()] = at)), proc.exited]);
  return { code: proc.exitCode, lines, markers };
}

describe("logs on stdout (written in batches)", () => {
  test("a line is written within moments while the process runs on, not only when it exits", async () => {
    const { code, lines, markers } = await run("linger", "1");
    expect(code).toBe(0);
    expect(lines.map((l) => l.value.msg)).toEqual(["line"]);
    // The process lives 2.5 s after logging; the periodic flush (200 ms) wrote the line long before it left.
    expect(markers.leaving - lines[0].at).toBeGreaterThan(1_500);
  }, 20_000);

  test("lines still buffered when the process exits are written, every one whole and in order", async () => {
    // 20 lines fit in the buffer (nothing is written before the exit); 5,000 are many writes.
    for (const count of [20, 5000]) {
      const { code, lines } = await run("exit", String(count));
      expect(code).toBe(3);
      expect(lines.length).toBe(count);
      expect(lines.every((l, i) => l.value.i === i && l.value.msg === "line" && l.value.level === 30)).toBe(true);
    }
  }, 20_000);

  test("a warning is written at once, with the lines logged before it", async () => {
    const { code, lines, markers } = await run("warn", "3");
    expect(code).toBe(0);
    expect(lines.map((l) => l.value.msg)).toEqual(["line", "line", "line", "attention"]);
    // The child blocks its event loop for 2.5 s right after the warning: lines left to the periodic flush
    // would arrive only after that.
    expect(markers.unblocked - lines[3].at).toBeGreaterThan(1_500);
  }, 20_000);
});
