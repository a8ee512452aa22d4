import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { copyDemoDatabase, READER_PATH, ROOT, startServer, tempDir, type RunningServer } from "../support/process";
import { TRIP_STATUSES } from "../../domain/trips/lifecycle";

/** The shell blocks of the README's tour, in order. */
export function tourBlocks(readme: string): string[] {
  const start = readme.indexOf("## A five-minute tour");
  const end = readme.indexOf("\n## ", start + 1);
  expect(start).toBeGreaterThan(0);
  const tour = readme.slice(start, end < 0 ? undefined : end);
  return [...tour.matchAll(/^```sh\n([\s\S]*?)^```$/gm)].map((m) => m[1]);
}

const README = readFileSync(join(ROOT, "README.md"), "utf8");
const blocks = tourBlocks(README);
const MARK = "@@TOUR-BLOCK-END@@";

describe("the README's five-minute tour", () => {
  let server: RunningServer;
  let dir: string;
  let outputs: string[] = [];
  let vars: Record<string, string> = {};
  let exitCode = -1;
  let stderr = "";

  beforeAll(async () => {
    dir = tempDir("tripswitch-tour-");
    // A fresh service with the demo data, as `npm start` gives it (the demo database seeded once a run and copied here:
    // the service started with DEMO_DATA=1 finds it loaded).
    await copyDemoDatabase(join(dir, "tour.sqlite"));
    server = await startServer({ DB_PATH: join(dir, "tour.sqlite"), DEMO_DATA: "1", OUTBOUND_ALLOW_PRIVATE: "0" }, { timeoutMs: 60_000 });
    // Every block runs as written, in one shell (the variables of one block are the next one's), in order; only the
    // address changes. After each block the shell prints a marker, and at the end the tour's variables.
    const script = [
      "set -e",
      ...blocks.map((b) => `${b.replace("BASE=http://localhost:3000", `BASE=${server.base}`)}\necho; echo '${MARK}'`),
      `node -e 'console.log(JSON.stringify({CORE_TOKEN: process.argv[1], PLATFORM_TOKEN: process.argv[2], OPTION: process.argv[3], ID: process.argv[4]}))' "$CORE_TOKEN" "$PLATFORM_TOKEN" "$OPTION" "$ID"`,
    ].join("\n");
    const proc = Bun.spawn(["bash", "-c", script], { cwd: dir, env: { PATH: READER_PATH, HOME: dir }, stdout: "pipe", stderr: "pipe" });
    const timer = setTimeout(() => proc.kill("SIGKILL"), 150_000);
    const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
    clearTimeout(timer);
    exitCode = code;
    stderr = err;
    const parts = out.split(`${MARK}\n`);
    outputs = parts.slice(0, -1).map((p) => p.trim());
    vars = JSON.parse(parts.at(-1)!.trim() || "{}");
  }, 200_000);

  afterAll(async () => {
    await server?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const json = (text: string) => JSON.parse(text.split("\n")[0]);

  test("has the five steps, and every variable it uses is defined in it before use (one name per credential)", () => {
    expect(blocks.length).toBe(5);
    const defined = new Set<string>();
    for (const block of blocks) {
      for (const line of block.split("\n")) {
        if (line.trim().startsWith("#")) continue;
        for (const m of line.matchAll(/\$\{?([A-Z_][A-Z0-9_]*)/g)) expect({ variable: m[1], defined: defined.has(m[1]) }).toEqual({ variable: m[1], defined: true });
        for (const m of line.matchAll(/(?:^|[\s;(])(?:for\s+)?([A-Z_][A-Z0-9_]*)(?:=|\s+in\s)/g)) defined.add(m[1]);
      }
    }
    const all = blocks.join("\n");
    // The bearer JWT and the platform token never share a name, and each goes where it belongs.
    expect(all).toMatch(/CORE_TOKEN=\$\(curl -s \$BASE\/api\/token /);
    expect(all).toMatch(/PLATFORM_TOKEN=\$\(curl -s \$BASE\/Platform\.svc\/getToken2 /);
    for (const m of all.matchAll(/-H "([^"]*\$(CORE_TOKEN|PLATFORM_TOKEN))"/g)) {
      expect(m[1]).toBe(m[2] === "CORE_TOKEN" ? "Authorization: Bearer $CORE_TOKEN" : "token: $PLATFORM_TOKEN");
    }
  });

  test("runs to the end", () => {
    expect({ exitCode, stderr }).toEqual({ exitCode: 0, stderr: "" });
    expect(outputs.length).toBe(blocks.length);
  });

  test("1: both credentials, and a fleet search with them", () => {
    expect(vars.CORE_TOKEN).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);
    expect(vars.PLATFORM_TOKEN).toMatch(/^\S{20,}$/);
    expect(vars.PLATFORM_TOKEN).not.toBe(vars.CORE_TOKEN);
    const search = json(outputs[0]);
    expect(search.success).toBe(true);
    expect(search.data.items.length).toBeGreaterThan(0);
    expect(search.data.items.every((v: { type: string }) => v.type === "SUV")).toBe(true);
  });

  test("2: a quote from the sandbox operator, options with a code and a fee", () => {
    const quote = json(outputs[1]);
    expect(quote).toMatchObject({ success: true, status: "QUOTE", transactionId: expect.any(String) });
    expect(quote.fees.length).toBeGreaterThan(0);
    for (const option of quote.fees) expect(option).toMatchObject({ code: expect.any(String), fee: expect.stringMatching(/^\d+\.\d\d$/) });
    // The fee the README shows is the one a fresh service answers (#38: it showed 75.00 for 80.00).
    const shown = [...README.matchAll(/"(?:fee|totalAmount)":"(\d+\.\d\d)"/g)].map((m) => m[1]);
    expect(shown.length).toBeGreaterThanOrEqual(3);
    expect(new Set(shown)).toEqual(new Set([quote.fees[0].fee]));
  });

  test("2: the first option is priced by the demo operator's rate card, with the breakdown the README shows", () => {
    const first = json(outputs[1]).fees[0];
    const breakdown = [
      { kind: "BASE", id: "jfk-midtown-sedan", name: "Route fare", amount: "95.00" },
      { kind: "SURCHARGE", id: "nyc-airport-fee", name: "Airport pickup (NY airports)", amount: "15.00" },
    ];
    expect(first).toMatchObject({ fee: "110.00", currency: "USD", vehType: "SEDAN", breakdown });
    // Every number the README's tour prints is what this fresh service answered.
    const tour = README.slice(README.indexOf("## A five-minute tour"));
    for (const line of breakdown) expect(tour).toContain(JSON.stringify(line));
    expect(tour).toContain(`"fee":"${first.fee}"`);
    expect(tour).toContain(`"totalAmount":"${first.fee}"`);
    expect(tour.match(/"(?:fee|totalAmount)":"[\d.]+"/g)!.every((m) => m.endsWith(`"${first.fee}"`))).toBe(true);
  });

  test("3: the booking keeps the chosen option and its quoted price", () => {
    const quote = json(outputs[1]);
    const booking = json(outputs[2]);
    expect(booking).toMatchObject({ success: true, transactionId: quote.transactionId, status: "BOOKING_REQUEST" });
    expect(vars.OPTION).toBe(quote.fees[0].code);
    expect(booking.fees.map((f: { code: string }) => f.code)).toEqual([quote.fees[0].code]);
    expect(booking.totalAmount).toBe(quote.fees[0].fee);
    expect(vars.ID).toBe(quote.transactionId);
  });

  test("4: watching it run: lifecycle statuses, in order, ending with CLOSE", () => {
    const seen = outputs[3].split("\n").map((l) => l.trim()).filter(Boolean);
    expect(seen.every((s) => (TRIP_STATUSES as readonly string[]).includes(s))).toBe(true);
    const distinct = seen.filter((s, i) => s !== seen[i - 1]);
    expect(distinct[0]).toMatch(/^(BOOKING_REQUEST|CONFIRMED)$/);
    expect(distinct).toContain("CONFIRMED");
    expect(distinct.at(-1)).toBe("CLOSE");
  });

  test("5: the booking read at the end: closed, priced, with its timeline", () => {
    const read = json(outputs[4]);
    const booking = json(outputs[2]);
    expect(read.success).toBe(true);
    expect(read.data).toMatchObject({ transactionId: vars.ID, lastStatus: "CLOSE", fromConextId: "DEMO-PLATFORM", toConextId: "ACME-LIMO" });
    expect(read.data.tripPacket.totalAmount).not.toBeNull();
    expect(read.data.tripPacket.totalAmount).toBe(booking.totalAmount);
    expect(read.data.tripPacket.changeLogs.length).toBeGreaterThan(3);
  });
});
