import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { chromium, type BrowserContext } from "playwright-core";
import { ROOT, tempDir } from "./process";

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
