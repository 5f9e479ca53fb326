// Debian's Chromium under playwright-core (from webui/node_modules): headless,
// a fresh profile in a temporary folder, no download of any browser. Every
// page's console errors and uncaught exceptions are collected, so a test can
// assert there were none.
import { createRequire } from "node:module";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
export const ROOT = path.resolve(here, "..", "..");
const require = createRequire(path.join(ROOT, "webui", "package.json"));
const { chromium } = require("playwright-core");

export const CHROMIUM = process.env.DET_CHROMIUM || "/usr/bin/chromium";
export const FLAGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

/** Starts the browser; returns {context, page, errors, close}. */
export async function openBrowser({ viewport = { width: 1366, height: 800 }, ignoreHTTPSErrors = false } = {}) {
  const profile = mkdtempSync(path.join(tmpdir(), "det-webui-chromium-"));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: FLAGS,
    viewport,
    ignoreHTTPSErrors,
  });
  const errors = [];
  const watch = (page) => {
    page.on("console", (m) => {
      if (m.type() === "error") errors.push(`console error on ${page.url()}: ${m.text()}`);
    });
    page.on("pageerror", (e) => errors.push(`uncaught exception on ${page.url()}: ${e.message}`));
  };
  context.pages().forEach(watch);
  context.on("page", watch);
  const page = context.pages()[0] ?? (await context.newPage());
  return {
    context,
    page,
    errors,
    close: async () => {
      await context.close().catch(() => {});
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

/** Polls fn() until it returns a truthy value or `ms` pass. */
export async function until(what, fn, ms = 60000, every = 200) {
  const end = Date.now() + ms;
  let last;
  for (;;) {
    try {
      last = await fn();
      if (last) return last;
    } catch (e) {
      last = e;
    }
    if (Date.now() > end) throw new Error(`timed out after ${ms / 1000} s waiting for ${what} (last: ${last})`);
    await new Promise((r) => setTimeout(r, every));
  }
}

// axe-core (a devDependency of webui/, installed by npm ci), evaluated in
// the page over the DevTools protocol, which the page's
// Content-Security-Policy does not govern (a <script> tag would be refused).
let axeSource;
function axe() {
  if (!axeSource) axeSource = readFileSync(require.resolve("axe-core/axe.min.js"), "utf8");
  return axeSource;
}

/** The serious and critical accessibility violations on the page as it is
 * now, one line each ("rule (impact): target, ..."). */
export async function axeViolations(page) {
  const has = await page.evaluate(() => typeof window.axe !== "undefined");
  if (!has) await page.evaluate(axe());
  const violations = await page.evaluate(async () => {
    const r = await window.axe.run(document, { resultTypes: ["violations"] });
    return r.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, targets: v.nodes.slice(0, 5).map((n) => n.target.join(" ")) }));
  });
  return violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => `${v.id} (${v.impact}): ${v.help}: ${v.targets.join(", ")}`);
}
