// The WebUI over HTTPS (a master with security.tls and a self-signed
// certificate, which the browser is told to accept): sign in, see the
// experiments list and the cluster page, no console error.
import path from "node:path";
import { openBrowser } from "./browser.mjs";

const URL_ = process.env.DET_WEBUI_URL;
const SHOTS = process.env.DET_WEBUI_SHOTS;
const b = await openBrowser({ ignoreHTTPSErrors: true });
const page = b.page;
try {
  if (!URL_.startsWith("https://")) throw new Error("not an https URL: " + URL_);
  await page.goto(URL_ + "/det/experiments");
  await page.waitForSelector("[data-testid=login-form]");
  await page.fill("input[name=username]", "admin");
  await page.click("[data-testid=sign-in]");
  await page.waitForSelector('[data-testid=experiments][data-loaded="1"]');
  await page.screenshot({ path: path.join(SHOTS, "https-experiments.png"), fullPage: true });
  await page.click("nav >> text=Cluster");
  await page.waitForSelector("[data-testid=pool-default]");
  await page.screenshot({ path: path.join(SHOTS, "https-cluster.png"), fullPage: true });
  if (b.errors.length) throw new Error("errors in the browser:\n" + b.errors.join("\n"));
  console.log("ok");
} catch (e) {
  console.error(`FAILED: ${e.stack || e}`);
  process.exitCode = 1;
} finally {
  await b.close();
}
