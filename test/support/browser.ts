import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { chromium, type BrowserContext, type Page } from "playwright-core";
import { DEMO_LOGIN } from "../../src/demo/seed";
import { ROOT, runCli, startServer, tempDir, type RunningServer } from "./process";

/** Debian's chromium (npm test installs it when missing: scripts/ensure-tools.sh); CHROMIUM_PATH points elsewhere. */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

/** Where browser tests leave their screenshots (git-ignored). */
export const ARTIFACTS = join(ROOT, "artifacts", "console");

/**
 * A real headless Chromium with a fresh profile and no background traffic. Fails loudly when the browser is
 * missing: the browser tests never skip silently.
 */
export async function startBrowser(): Promise<BrowserContext> {
  if (!existsSync(CHROMIUM))
    throw new Error(`Chromium not found at ${CHROMIUM}: install Debian's "chromium" package (scripts/ensure-tools.sh does, as root) or set CHROMIUM_PATH`);
  mkdirSync(ARTIFACTS, { recursive: true });
  return chromium.launchPersistentContext(tempDir("tripswitch-chromium-"), {
    executablePath: CHROMIUM,
    headless: true,
    viewport: { width: 1280, height: 900 },
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
 * `serve` on a fresh SQLite file holding the demo data (seeded by the CLI), after the CLI `commands` ran on it (each
 * must exit 0): what the console's browser tests sign in to.
 */
export async function startDemoServer(env: Record<string, string> = {}, commands: string[][] = [], timeoutMs = 30_000): Promise<RunningServer> {
  const dbEnv = { DB_PATH: join(tempDir(), "db.sqlite"), DEMO_DATA: "0", ...env };
  for (const command of [["seed-demo"], ...commands]) {
    const r = await runCli(command, dbEnv, { timeoutMs: 120_000 });
    if (r.code !== 0) throw new Error(`${command.join(" ")} exited with ${r.code}: ${r.stderr}`);
  }
  return startServer(dbEnv, { timeoutMs });
}
