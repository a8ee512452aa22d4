export {};
// Runs `bun test` (forwarding arguments), streams its output, then prints the line CI reads:
// "N passed, N failed" — and exits with bun's own exit code.
// Component tests start servers, build the binary and run the benchmark parts: they get 60 s each (bun's default
// is 5 s; bunfig.toml has no setting for it), unless the caller passes its own --timeout.
const args = process.argv.slice(2);
// The Debian packages the suite drives (wrk, chromium), installed when missing and possible.
if (process.env.TRIPSWITCH_SKIP_TOOLS !== "1") Bun.spawnSync(["bash", `${import.meta.dir}/ensure-tools.sh`], { stdout: "inherit", stderr: "inherit", stdin: "ignore" });
const timeout = args.some((a) => a.startsWith("--timeout")) ? [] : ["--timeout", "60000"];
const proc = Bun.spawn([process.execPath, "test", ...timeout, ...args], {
  stdout: "pipe",
  stderr: "pipe",
  stdin: "ignore",
  env: { ...process.env, LOG_LEVEL: process.env.LOG_LEVEL ?? "silent" },
});

let tail = "";
async function pump(stream: ReadableStream<Uint8Array>, out: NodeJS.WriteStream) {
  const decoder = new TextDecoder();
  for await (const chunk of stream as unknown as AsyncIterable<Uint8Array>) {
    const text = decoder.decode(chunk, { stream: true });
    out.write(text);
    tail = (tail + text).slice(-4096);
  }
}
await Promise.all([pump(proc.stdout, process.stdout), pump(proc.stderr, process.stderr)]);
const code = await proc.exited;

const count = (word: string) => Number(/^\s*(\d+) (?:pass|fail)\s*$/m.exec(tail.split("\n").filter((l) => new RegExp(`^\\s*\\d+ ${word}\\s*$`).test(l)).pop() ?? "")?.[1] ?? 0);
const passed = count("pass");
const failed = count("fail");
console.log(`${passed} passed, ${failed} failed`);
process.exit(code === 0 && passed === 0 ? 1 : code);
