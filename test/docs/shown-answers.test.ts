import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { ROOT } from "../support/process";
import { answerDiffers, commandLines, lastCommand, parseShape, shownAnswers } from "../support/shown-answer";
import { BOOKING_EVENT_TYPES } from "../../domain/trips/booking-event";
import { POSITION_EVENT } from "../../domain/events/live-events";

// The rule the docs test compares shown answers (`# → …`) by (test/support/shown-answer.ts), and what it holds the
// docs' prose to: commands a reader types run on a machine the README set up, and the event types are all listed.

const DOCS = ["README.md", ...readdirSync(join(ROOT, "docs")).filter((f) => f.endsWith(".md")).map((f) => `docs/${f}`)];
const read = (path: string) => readFileSync(join(ROOT, path), "utf8");

describe("a shown answer that reads as JSON is a shape", () => {
  const same = (shown: string, printed: unknown) => answerDiffers(shown, typeof printed === "string" ? printed : JSON.stringify(printed));

  test("an answer equal to the output matches, key order aside, and white space around it does not count", () => {
    expect(same('{"a":1,"b":"x"}', '\n {"b":"x","a":1}\n')).toBeUndefined();
    expect(same('"OK"', '"OK"')).toBeUndefined();
    expect(same("[1, 2, 3]", [1, 2, 3])).toBeUndefined();
  });

  test("a value, a key or an element that differs fails, naming where", () => {
    expect(same('{"fee":"75.00"}', { fee: "80.00" })).toBe('$.fee: shown "75.00", answered "80.00"');
    expect(same('{"a":{"b":[1,2]}}', { a: { b: [1, 3] } })).toBe("$.a.b[1]: shown 2, answered 3");
    expect(same('{"rate":0.9341}', { rate: 0.93414292 })).toBe("$.rate: shown 0.9341, answered 0.93414292");
    expect(same('{"a":1,"b":2}', { a: 1 })).toBe("$.b: shown, but not in the answer");
    expect(same('{"n":1}', { n: "1" })).toBe('$.n: shown 1, answered "1"');
    expect(same('{"ok":true}', { ok: null })).toBe("$.ok: shown true, answered null");
    expect(same('{"a":1}', "not json")).toBe('shown JSON, answered "not json"');
    expect(same('{"a":1}', "")).toBe("shown JSON, answered nothing");
  });

  test("without …, an object has exactly the keys shown and an array exactly the elements shown", () => {
    expect(same('{"a":1}', { a: 1, warnings: [] })).toBe("$: the answer has members the shown answer has not (and no …): warnings");
    expect(same("[1]", [1, 2])).toBe("$: the answer has 2 elements, more than shown");
    expect(same("[1,2,3]", [1, 2])).toBe("$: the answer has 2 elements, fewer than shown");
  });

  test("… as a value is any value, as members any other members, as elements any run of elements (none too)", () => {
    expect(same('{"id":…,"n":2}', { id: { deep: [1] }, n: 2 })).toBeUndefined();
    expect(same('{"n":2,…}', { n: 2, more: 1, andMore: [] })).toBeUndefined();
    expect(same('{"n":2,…}', { n: 2 })).toBeUndefined();
    expect(same("[…]", [])).toBeUndefined();
    expect(same("{…}", { any: 1 })).toBeUndefined();
    expect(same('[{"a":1},…]', [{ a: 1 }, { a: 2 }, { b: 3 }])).toBeUndefined();
    expect(same('[…,{"a":3}]', [{ a: 1 }, { a: 3 }])).toBeUndefined();
    expect(same('[{"a":1},…,{"a":3},…]', [{ a: 1 }, { a: 2 }, { a: 3 }, { a: 4 }])).toBeUndefined();
    // An elided run still keeps the order of what is shown.
    expect(same('[{"a":3},…,{"a":1}]', [{ a: 1 }, { a: 3 }])).toBeDefined();
    expect(same('[…,{"a":9}]', [{ a: 1 }, { a: 3 }])).toBe("$[0].a: shown 9, answered 1");
    // … in an object is never a value of a key it does not name: the keys shown must be there.
    expect(same('{"a":1,…}', { b: 1 })).toBe("$.a: shown, but not in the answer");
  });

  test("a string with … in it is the rest around any characters", () => {
    expect(same('{"code":"acme-limo-…"}', { code: "acme-limo-black-audi-a6" })).toBeUndefined();
    expect(same('{"id":"…"}', { id: "01a2507b-c05c" })).toBeUndefined();
    expect(same('{"id":"…"}', { id: "" })).toBeUndefined();
    expect(same('{"t":"2027-…Z"}', { t: "2027-01-15T08:00:00Z" })).toBeUndefined();
    expect(same('{"code":"acme-limo-…"}', { code: "blue-sky-sedan" })).toBe('$.code: shown "acme-limo-…", answered "blue-sky-sedan"');
    expect(same('{"id":"…"}', { id: 7 })).toBe("$.id: shown a string, answered 7");
  });

  test("the docs' shapes read as shapes: prose in an answer does not (it is then text, and fails)", () => {
    expect(parseShape('{"success":true,"fees":[{"code":"acme-limo-…",…}],…}')).toBeDefined();
    expect(parseShape('{"fees":[the option]}')).toBeUndefined();
    expect(parseShape('[{"a":1}] (a bare array)')).toBeUndefined();
    expect(answerDiffers('{"fees":[the option]}', '{"fees":[{"code":"x"}]}')).toBeDefined();
  });
});

describe("any other shown answer is text", () => {
  test("… is any run of characters, white space any white space, the rest as written", () => {
    expect(answerDiffers("FX table of 2024-06-28 imported: 30 currencies per 1 EUR", "FX table of 2024-06-28 imported: 30 currencies per 1 EUR\n")).toBeUndefined();
    expect(answerDiffers("FX table of 2024-06-28 imported: 30 currencies per 1 EUR", "FX table of 2024-06-29 imported: 30 currencies per 1 EUR")).toBeDefined();
    expect(answerDiffers("BOOKING_REQUEST … CONFIRMED … CLOSE", "BOOKING_REQUEST\nBOOKING_REQUEST\nCONFIRMED\nASSIGNED\nCLOSE")).toBeUndefined();
    expect(answerDiffers("BOOKING_REQUEST … CONFIRMED … CLOSE", "BOOKING_REQUEST\nCONFIRMED\nCLOSE")).toBeUndefined();
    expect(answerDiffers("BOOKING_REQUEST … CONFIRMED … CLOSE", "BOOKING_REQUEST\nASSIGNED\nCLOSE")).toBeDefined();
    expect(answerDiffers("a b", "a\n\tb")).toBeUndefined();
    expect(answerDiffers("a b", "ab")).toBeDefined();
  });
});

describe("which command a shown answer belongs to", () => {
  test("the whole command just above it: continued lines, quoted lines, pipes and loops", () => {
    const block = [
      "BASE=http://localhost:3000", // 0
      "curl -s $BASE/a -d '{", // 1
      '  "x": 1}\' \\', // 2
      "  | tee a.json", // 3
      "# → {…}", // 4
      "# A comment: prose", // 5
      'for i in $(seq 3); do', // 6
      '  echo "$i"; [ "$i" = 3 ] && break', // 7
      "done", // 8
      "# → 1 2 3", // 9
      'curl -s $BASE/b   # → "OK"', // 10
      "ID=$(node -pe 1)", // 11
    ].join("\n");
    expect(shownAnswers(block)).toEqual([
      { line: 4, commandFrom: 1, commandTo: 3, text: "{…}" },
      { line: 9, commandFrom: 6, commandTo: 8, text: "1 2 3" },
      { line: 10, commandFrom: 10, commandTo: 10, text: '"OK"' },
    ]);
    expect(commandLines(block.split("\n")).map((l) => l.starts)).toEqual([true, true, false, false, false, false, true, false, false, false, true, true]);
  });

  test("an answer goes on over comment lines indented past the #; a comment with one space is prose again", () => {
    const block = ["curl -s x", '# → {"a":1,', '#    "b":2}', "# Then book it", "curl -s y"].join("\n");
    expect(shownAnswers(block)).toEqual([{ line: 1, commandFrom: 0, commandTo: 0, text: '{"a":1,\n"b":2}' }]);
  });

  test("a ```json answer block shows what the last command of the block above printed: all its lines", () => {
    expect(lastCommand(["TOKEN=$(login x)", "sedan() {", "  curl -s x", "}", "sedan '{\"a\":", "  1}' \\", "  | node -pe 1", "# prose"].join("\n"))).toEqual({
      commandFrom: 4,
      commandTo: 6,
    });
    expect(lastCommand("# only prose\n")).toBeUndefined();
  });

  test("a shown answer inside an unfinished command is refused", () => {
    expect(() => shownAnswers(["curl -s x \\", "# → {…}"].join("\n"))).toThrow("must follow a whole command");
  });
});

/** Commands of a markdown text (fenced and indented blocks, inline code) that run a bare `bun`, as `line: command`. */
function bareBun(markdown: string): string[] {
  const commands: Array<{ line: number; text: string }> = [];
  const lines = markdown.split("\n");
  let fenced = false;
  let prose = "";
  // The 0-based line the prose being read starts on.
  let proseStart = 0;
  const spans = () => {
    for (const m of prose.matchAll(/`([^`]+)`/g)) commands.push({ line: proseStart + prose.slice(0, m.index).split("\n").length, text: m[1] });
    prose = "";
  };
  lines.forEach((line, i) => {
    const code = fenced || /^( {4}|\t)\S/.test(line);
    if (/^\s*```/.test(line) || code) {
      spans();
      proseStart = i + 1;
      if (/^\s*```/.test(line)) fenced = !fenced;
      else commands.push({ line: i + 1, text: line });
    } else prose += `${line}\n`;
  });
  spans();
  return commands
    .map(({ line, text }) => ({ line, command: text.replace(/(^|\s)#.*$/s, "").replace(/\s+/g, " ").trim() }))
    .filter(({ command }) => /(^|[;&|(]|\$\()\s*(\w+=\S*\s+)*bun\s/.test(command))
    .sort((a, b) => a.line - b.line)
    .map(({ line, command }) => `${line}: ${command}`);
}

describe("the docs' prose and code", () => {
  test("a command a reader types runs Bun as `npx bun` (the README installs Bun from npm, not on the PATH)", () => {
    const bare: string[] = [];
    for (const path of DOCS) bare.push(...bareBun(read(path)).map((b) => `${path}:${b}`));
    expect(bare).toEqual([]);
    // The check itself.
    expect(bareBun("Run `bun src/main.ts serve`, then (`BENCH_DIR=x\nbun bench/a.ts`):\n\n    BENCH_SIZES=1 bun bench/index.ts\n\n```sh\nx && bun run y\n```\n")).toEqual([
      "1: bun src/main.ts serve",
      "1: BENCH_DIR=x bun bench/a.ts",
      "4: BENCH_SIZES=1 bun bench/index.ts",
      "7: x && bun run y",
    ]);
    expect(bareBun("`npx bun src/main.ts`, a bun, `npm run build  # bun build --compile`\n```sh\nnpx bun test\n```\n")).toEqual([]);
  });

  test("docs/events.md and docs/webhooks.md name every booking event type the exchange announces", () => {
    expect(BOOKING_EVENT_TYPES).toContain("booking.reassigned");
    const events = read("docs/events.md");
    const webhooks = read("docs/webhooks.md");
    const missing = [
      ...[...BOOKING_EVENT_TYPES, POSITION_EVENT].filter((t) => !events.includes(`\`${t}\``)).map((t) => `docs/events.md: ${t}`),
      ...BOOKING_EVENT_TYPES.filter((t) => !webhooks.includes(`\`${t}\``)).map((t) => `docs/webhooks.md: ${t}`),
    ];
    expect(missing).toEqual([]);
  });
});
