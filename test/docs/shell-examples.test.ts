import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { copyDemoDatabase, READER_PATH, ROOT, startServer, tempDir, type RunningServer } from "../support/process";
import { answerDiffers, lastCommand, shownAnswers, type ShownAnswer } from "../support/shown-answer";

/**
 * Every shell example of README.md and docs/*.md runs as written (#38), and shows what it prints (#45): each
 * document's ```sh / ```bash blocks, in order, in ONE shell (a block's variables are the next one's), against a fresh
 * service with the demo data, on a machine as the README sets it up (Node.js and npm: `npx bun`, no `bun` on the
 * PATH); only `http://localhost:3000` becomes the service's address. A curl answering 400 or more fails the document
 * (a 429 is retried after a second, as a client would), as does any failing command. A block that cannot run (it
 * starts a server, streams until stopped) is marked in the markdown by the line `<!-- docs-test: skip <reason> -->`
 * just above it, and listed by the test. A ```json block whose info string names `file=<name>` is written to that
 * file first (the examples' `--data @<name>`). New pages join by being in docs/.
 *
 * A ```json block whose info string says `answer` is the shown answer of the last command of the shell block above it
 * (prose between): a worked example shown as readable JSON, compared as a `# →` answer is. On the pages whose worked
 * examples are JSON (ANSWERED_PAGES: rates, terms), every ```json block is run (`file=`), compared (`answer`) or says
 * why not (`<!-- docs-test: skip <reason> -->`), listed in SKIPPED.
 *
 * A shown answer (`# → …` after a command) is compared with what that command printed, by the rule of
 * test/support/shown-answer.ts: an answer that reads as JSON is a shape where `…` stands for any value, any run of
 * array elements or any other object members (and, inside a string, any characters), and everything else must be
 * equal — every key shown present, an object without `…` has no other key, an array without `…` exactly the elements
 * shown; any other answer is text where `…` is any run of characters.
 */

export interface Example {
  line: number;
  code: string;
  skip?: string;
  file?: string;
  /** A ```json answer block: the shown answer of the last command of the shell block above it. */
  answer?: true;
  /** Any other ```json block (neither a file nor an answer). */
  json?: true;
}

/** The runnable blocks and files of one markdown text. */
export function examplesOf(markdown: string): Example[] {
  const out: Example[] = [];
  for (const m of markdown.matchAll(/^```([^\n]*)\n([\s\S]*?)^```[ \t]*$/gm)) {
    const info = m[1].trim();
    const line = markdown.slice(0, m.index).split("\n").length;
    const before = markdown.slice(0, m.index).trimEnd().split("\n").at(-1) ?? "";
    const skip = /^<!--\s*docs-test:\s*skip\s+(.+?)\s*-->$/.exec(before)?.[1];
    const file = /\bfile=([\w.-]+)/.exec(info)?.[1];
    if (/^(sh|bash|shell)\b/.test(info)) out.push({ line, code: m[2], ...(skip ? { skip } : {}) });
    else if (file) out.push({ line, code: m[2], file });
    else if (/^json\b/.test(info)) out.push({ line, code: m[2], ...(/\banswer\b/.test(info) ? { answer: true } : { json: true }), ...(skip ? { skip } : {}) });
  }
  return out;
}

const DOCS = ["README.md", ...readdirSync(join(ROOT, "docs")).filter((f) => f.endsWith(".md")).sort().map((f) => `docs/${f}`)];
const ONLY = process.env.DOCS_PAGES?.split(",");
const pages = DOCS.filter((d) => !ONLY || ONLY.some((o) => d.includes(o)))
  .map((path) => ({ path, examples: examplesOf(readFileSync(join(ROOT, path), "utf8")) }))
  .filter((p) => p.examples.some((e) => !e.file && !e.json && !e.answer));
/** Pages whose worked examples are JSON blocks: each runs, is compared, or says why not. */
const ANSWERED_PAGES = ["docs/rates.md", "docs/terms.md"];

/** curl that fails on an HTTP error status, retrying a 429 after a second (at most 3 times). */
const CURL_GUARD = [
  "curl() {",
  "  local attempt out status",
  "  for attempt in 1 2 3 4; do",
  "    out=$(command curl \"$@\" -w '\\n@@HTTP %{http_code}') || return $?",
  "    status=${out##*@@HTTP }",
  "    [ \"$status\" = 429 ] && [ \"$attempt\" -lt 4 ] && { sleep 1.1; continue; }",
  "    break",
  "  done",
  "  printf '%s\\n' \"${out%$'\\n'@@HTTP *}\"",
  "  if [ \"$status\" -ge 400 ]; then echo \"HTTP $status from: curl $*\" >&2; return 1; fi",
  "}",
].join("\n");

const servers: RunningServer[] = [];
const dirs: string[] = [];
afterAll(async () => {
  for (const s of servers) await s.stop();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const MARK = "@@BLOCK-DONE@@";
const answerMark = (n: number, end: "FROM" | "TO") => `@@ANSWER-${end}-${n}@@`;

/**
 * A block as the test runs it: a marker line around each command with a shown answer, to cut out what it printed.
 * `after`: the ```json answer blocks that follow it, shown answers of its last command.
 */
function withAnswerMarks(code: string, first: number, after: Example[] = []): { code: string; answers: Array<ShownAnswer & { at?: number }> } {
  const last = after.length > 0 ? lastCommand(code) : undefined;
  if (after.length > 0 && !last) throw new Error(`the json answer at markdown line ${after[0].line} follows a shell block without a command`);
  const answers = [...shownAnswers(code), ...after.map((a) => ({ line: -1, ...last!, text: a.code.trim(), at: a.line }))];
  const lines = code.split("\n");
  const out: string[] = [];
  lines.forEach((line, i) => {
    answers.forEach((a, k) => a.commandFrom === i && out.push(`printf '\\n${answerMark(first + k, "FROM")}\\n'`));
    out.push(line);
    answers.forEach((a, k) => a.commandTo === i && out.push(`printf '\\n${answerMark(first + k, "TO")}\\n'`));
  });
  return { code: out.join("\n"), answers };
}

/** What each shown answer's command printed (undefined: the page stopped before it). */
function printed(stdout: string, count: number): Array<string | undefined> {
  return Array.from({ length: count }, (_, n) => {
    const from = stdout.indexOf(`${answerMark(n, "FROM")}\n`);
    const to = stdout.indexOf(`\n${answerMark(n, "TO")}`);
    return from < 0 || to < from ? undefined : stdout.slice(from + answerMark(n, "FROM").length + 1, to);
  });
}

/** Runs a document's examples against its own fresh service; the blocks that completed, what failed, and the answers. */
async function runPage(examples: Example[]) {
  const dir = tempDir("tripswitch-docs-");
  dirs.push(dir);
  // The repository's top-level entries, linked, so `src/main.ts` and `data/examples/…` resolve; files the examples
  // write (quote.json, …) stay in the temporary directory.
  for (const entry of readdirSync(ROOT)) if (![".git", "data"].includes(entry)) symlinkSync(join(ROOT, entry), join(dir, entry));
  mkdirSync(join(dir, "data"));
  for (const entry of readdirSync(join(ROOT, "data"))) if (!/\.(sqlite|db|key)|-wal$|-shm$/.test(entry)) symlinkSync(join(ROOT, "data", entry), join(dir, "data", entry));
  const dbPath = join(dir, "docs.sqlite");
  // The demo data as `npm start` loads it into an empty database (seedDemo), seeded once a run and copied here: the
  // service started with DEMO_DATA=1 finds it loaded.
  await copyDemoDatabase(dbPath);
  const env = { DB_PATH: dbPath, DEMO_DATA: "1", OUTBOUND_ALLOW_PRIVATE: "0" };
  const server = await startServer(env, { timeoutMs: 90_000 });
  servers.push(server);
  const runnable = examples.filter(isShell);
  for (const e of examples) if (e.file) writeFileSync(join(dir, e.file), e.code);
  const shown: Array<ShownAnswer & { markdownLine: number }> = [];
  const blocks = runnable.map((e) => {
    const marked = withAnswerMarks(e.code, shown.length, answersAfter(examples, e));
    shown.push(...marked.answers.map((a) => ({ ...a, markdownLine: a.at ?? e.line + a.line + 1 })));
    return marked.code;
  });
  const script = [
    "set -eo pipefail",
    CURL_GUARD,
    ...blocks.map((code) => `${code.replaceAll("http://localhost:3000", server.base).replaceAll("localhost:3000", server.base.replace(/^http:\/\//, ""))}\necho '${MARK}'`),
  ].join("\n");
  const proc = Bun.spawn(["bash", "-c", script], {
    cwd: dir,
    env: { PATH: READER_PATH, HOME: dir, LOG_LEVEL: "silent", npm_config_update_notifier: "false", ...env },
    stdout: "pipe",
    stderr: "pipe",
  });
  const timer = setTimeout(() => proc.kill("SIGKILL"), 240_000);
  const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  clearTimeout(timer);
  const done = out.split(MARK).length - 1;
  const failed = done < runnable.length ? runnable[done] : undefined;
  const stdout = code === 0 ? "" : out.trim().split("\n").slice(-8).join("\n");
  const outputs = printed(out, shown.length);
  const answers = shown.map((a, n) => ({
    line: a.markdownLine,
    differs: outputs[n] === undefined ? "the page stopped before this command" : answerDiffers(a.text, outputs[n]!),
  }));
  return { code, done, total: runnable.length, failedAt: failed?.line, stderr: err.trim().split("\n").slice(-6).join("\n"), stdout, answers };
}

const isShell = (e: Example) => !e.skip && !e.file && !e.answer && !e.json;

/** The ```json answer blocks between a shell block and the next one: the shown answers of its last command. */
function answersAfter(examples: Example[], block: Example): Example[] {
  const out: Example[] = [];
  for (const e of examples.slice(examples.indexOf(block) + 1)) {
    if (!e.file && !e.answer && !e.json) break;
    if (e.answer && !e.skip) out.push(e);
  }
  return out;
}

/**
 * The pages run three at a time, each against its own service (most of a page's time is spent waiting on its service
 * and its curl calls, not on a core): every page's run starts when a test first asks, and each test awaits its own.
 */
const PAGES_AT_ONCE = 3;
type PageRun = Awaited<ReturnType<typeof runPage>>;
let runs: Map<string, Promise<PageRun>> | undefined;
function pageRun(page: (typeof pages)[number]): Promise<PageRun> {
  if (!runs) {
    const started = new Map<string, (run: Promise<PageRun>) => void>();
    runs = new Map(pages.map((p) => [p.path, new Promise<PageRun>((resolve) => started.set(p.path, (run) => resolve(run)))]));
    const queue = [...pages];
    const worker = async () => {
      for (let p = queue.shift(); p; p = queue.shift()) {
        const run = runPage(p.examples);
        started.get(p.path)!(run);
        await run.catch(() => {});
      }
    };
    for (let i = 0; i < PAGES_AT_ONCE; i++) void worker();
  }
  return runs.get(page.path)!;
}

describe("the shell examples of README.md and docs/", () => {
  test("the pages with shell examples are found, and each example that does not run says why", () => {
    expect(pages.map((p) => p.path)).toContain("README.md");
    const listed = (p: (typeof pages)[number], e: Example) => e.skip && (!e.json || ANSWERED_PAGES.includes(p.path));
    const skipped = pages.flatMap((p) => p.examples.filter((e) => listed(p, e)).map((e) => `${p.path}:${e.line}: ${e.skip}`));
    // The examples that cannot run as a test, listed (a new one must be added here on purpose).
    expect(skipped.map((s) => s.replace(/:\d+:/, ":"))).toEqual(SKIPPED);
  });

  test("on the pages whose worked examples are JSON, every ```json block runs, is compared or says why not", () => {
    for (const path of ANSWERED_PAGES) expect(pages.map((p) => p.path)).toContain(path);
    const loose = pages
      .filter((p) => ANSWERED_PAGES.includes(p.path))
      .flatMap((p) => p.examples.filter((e) => e.json && !e.skip).map((e) => `${p.path}:${e.line}`));
    expect(loose).toEqual([]);
    // An answer block belongs to a shell block that runs.
    for (const p of pages)
      for (const e of p.examples.filter((x) => x.answer && !x.skip)) {
        const before = p.examples.slice(0, p.examples.indexOf(e)).findLast((x) => !x.file && !x.json && !x.answer);
        expect({ at: `${p.path}:${e.line}`, runs: before !== undefined && !before.skip }).toEqual({ at: `${p.path}:${e.line}`, runs: true });
      }
  });

  for (const page of pages) {
    test(`${page.path}: every example runs as written against a fresh service`, async () => {
      const { answers: _, ...run } = await pageRun(page);
      expect({ page: page.path, ...run }).toEqual({ page: page.path, code: 0, done: run.total, total: run.total, failedAt: undefined, stderr: "", stdout: "" });
    }, 360_000);
    if (page.examples.some((e) => !e.skip && !e.file && !e.json && (e.answer || shownAnswers(e.code).length > 0)))
      test(`${page.path}: every shown answer (# →) is what its command printed`, async () => {
        const run = await pageRun(page);
        expect(run.answers.length).toBeGreaterThan(0);
        expect(run.answers.filter((a) => a.differs).map((a) => `${page.path}:${a.line}: ${a.differs}`)).toEqual([]);
      }, 360_000);
  }
});

/** Every example the markdown marks as not runnable (a shell block; a ```json block of ANSWERED_PAGES), by page and reason. */
const SKIPPED = [
  "docs/events.md: (it streams until stopped)",
  "docs/rates.md: (a part of a card: test/domain/pricing/card-pricing.test.ts reads it here, prices it and refuses it swapped)",
  "docs/security.md: (it is the conformance check itself, which the suite runs: test/reliability/conformance.test.ts)",
  "docs/terms.md: (an answer at 13:30 UTC on 15 January 2027: test/domain/trips/terms.test.ts reads it here and checks it)",
  "docs/terms.md: (a late cancel's line: test/domain/trips/terms.test.ts reads it here and checks it)",
  "docs/terms.md: (figures of a provider with 48 bookings, which the demo has not: the shell example below shows the members)",
  "docs/terms.md: (a part of the webhook's data, not a command's answer: test/adapters/http/core/cascade-deadlines.test.ts checks it)",
  "docs/webhooks.md: (it starts a service and a receiver that run until stopped)",
  "docs/webhooks.md: (it needs a message sent to a verified, reachable webhook URL: see Testing on your machine)",
  "docs/webhooks.md: (it needs a verified, reachable webhook URL: see Testing on your machine)",
];
