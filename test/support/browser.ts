import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { chromium, type Browser, type BrowserContext, type Page } from "playwright-core";
import { DEMO_LOGIN } from "../../src/demo/seed";
import { copyDemoDatabase, postJson, ROOT, startServer, tempDir, type RunningServer } from "./process";

/** Debian's chromium (npm test installs it when missing: scripts/ensure-tools.sh); CHROMIUM_PATH points elsewhere. */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

/** Where browser tests leave their screenshots (git-ignored). */
export const ARTIFACTS = join(ROOT, "artifacts", "console");

/**
 * A real headless Chromium context with a fresh profile of its own (cookies, storage, cache) and no background
 * traffic, alone in its Chromium, which its caller closes. The Chromium is kept when the context closes, for the
 * next context this test process asks for (a worker of the parallel run runs several browser files), where a launch
 * per file cost about a second of CPU; a context asked for while another is open gets a Chromium of its own, as
 * before. Playwright stops them when the process exits. Fails loudly when the browser is missing: the browser tests
 * never skip silently.
 */
export async function startBrowser(): Promise<BrowserContext> {
  if (!existsSync(CHROMIUM))
    throw new Error(`Chromium not found at ${CHROMIUM}: install Debian's "chromium" package (scripts/ensure-tools.sh does, as root) or set CHROMIUM_PATH`);
  mkdirSync(ARTIFACTS, { recursive: true });
  let browser = idleChromiums.pop();
  while (browser && !browser.isConnected()) browser = idleChromiums.pop();
  const chromiumOfContext = browser ?? (await launchChromium());
  const context = await chromiumOfContext.newContext({ viewport: { width: 1280, height: 900 } });
  context.once("close", () => void (chromiumOfContext.isConnected() && idleChromiums.push(chromiumOfContext)));
  return context;
}

/** This process's Chromiums with no context open. */
const idleChromiums: Browser[] = [];
function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
    timeout: 30_000,
  });
}

/** A fresh browser and its first page, whose locators wait up to `timeoutMs`. */
export async function openPage(timeoutMs: number): Promise<{ browser: BrowserContext; page: Page }> {
  const browser = await startBrowser();
  const page = browser.pages()[0] ?? (await browser.newPage());
  page.setDefaultTimeout(timeoutMs);
  return { browser, page };
}

/**
 * Signs `uid` in on the console at `base` (the demo password unless given; `hash` is the route to land on) and waits
 * until the console shows the company signed in: its navigation and the Sign out button.
 */
export async function signIn(page: Page, base: string, uid: string, options: { pw?: string; hash?: string } = {}): Promise<void> {
  await page.goto(`${base}/console${options.hash ?? ""}`);
  await page.getByLabel("User ID").fill(uid);
  await page.getByLabel("Password").fill(options.pw ?? DEMO_LOGIN.pw);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.getByRole("button", { name: "Sign out" }).waitFor();
  // Every company has Bookings (a CO, a requester only, has no Fleet).
  await page.getByRole("navigation", { name: "Console" }).getByRole("link", { name: "Bookings" }).waitFor();
}

/**
 * `serve` (with `env`) on a fresh SQLite file holding the demo data (seeded by the CLI), after the CLI `commands` ran
 * on it (each must exit 0): what the console's browser tests sign in to.
 */
export async function startDemoServer(env: Record<string, string> = {}, commands: string[][] = [], timeoutMs = 30_000): Promise<RunningServer> {
  const dbPath = join(tempDir(), "db.sqlite");
  await copyDemoDatabase(dbPath, commands);
  // The gazetteer warms as the service starts (GAZETTEER_WARM): New trip places a drop-off given by address by its city.
  return startServer({ DB_PATH: dbPath, DEMO_DATA: "0", GAZETTEER_WARM: "1", ...env }, { timeoutMs });
}

/** A demo server, a signed-in-ready browser page and API tokens: what each console browser test starts with. */
export interface ConsoleFixture {
  server: RunningServer;
  browser: BrowserContext;
  page: Page;
  /** The API token (`/api/token`) of each company in `tokensFor`. */
  jwt: Record<string, string>;
  /** `method path` on the API as company `who` (its token as Bearer), with a JSON body when given. */
  call(who: string, method: string, path: string, body?: unknown): Promise<{ status: number; body: any }>;
  /** Follows the console's navigation link `name`. */
  nav(name: string): Promise<void>;
  /** A full-page screenshot into ARTIFACTS, `prefix` + `name`.png. */
  shot(name: string): Promise<void>;
  /** Closes the browser, then stops the server: its exit code (0 when it drained cleanly). */
  stop(): Promise<number>;
}

/**
 * startDemoServer (with `env` and the CLI `commands`), API tokens for `tokensFor`, and a fresh page whose locators wait
 * 20 s. The page is not signed in: a test signs in as the company it plays (signIn).
 */
export async function startConsole(
  options: { env?: Record<string, string>; commands?: string[][]; tokensFor?: string[]; shotPrefix?: string } = {},
): Promise<ConsoleFixture> {
  const server = await startDemoServer(options.env ?? {}, options.commands ?? [], 60_000);
  const jwt: Record<string, string> = {};
  let opened: Awaited<ReturnType<typeof openPage>>;
  try {
    for (const uid of options.tokensFor ?? []) jwt[uid] = (await postJson(`${server.base}/api/token`, { uid, pw: DEMO_LOGIN.pw })).body.token;
    opened = await openPage(20_000);
  } catch (e) {
    await server.stop();
    throw e;
  }
  const { browser, page } = opened;
  return {
    server,
    browser,
    page,
    jwt,
    async call(who, method, path, body) {
      const res = await fetch(`${server.base}${path}`, {
        method,
        headers: { authorization: `Bearer ${jwt[who]}`, ...(body !== undefined ? { "content-type": "application/json" } : {}) },
        body: body !== undefined ? JSON.stringify(body) : undefined,
      });
      return { status: res.status, body: await res.json() };
    },
    nav: (name) => page.getByRole("navigation", { name: "Console" }).getByRole("link", { name, exact: true }).click(),
    shot: async (name) => {
      await page.screenshot({ path: join(ARTIFACTS, `${options.shotPrefix ?? ""}${name}.png`), fullPage: true });
    },
    async stop() {
      await browser.close();
      return server.stop();
    },
  };
}
