// The WebUI in a real browser against a real master with local agents
// (started by tests/webui/test_webui.py, which passes what it made in the
// environment). Steps, each awaiting a condition (no fixed sleeps):
// sign in; the experiments list shows both experiments; experiment A
// completes on its page and its chart has one series per trial with every
// reported point; B's trial page shows logs while the trial runs; pause and
// activate on B's page and kill from the list's bulk action are seen by the
// det CLI; the cluster page shows the agents, then none once the pool has
// scaled down; sign out. Every page is screenshot into SHOTS; any console
// error or uncaught exception on any page fails the run.
import { execFileSync } from "node:child_process";
import path from "node:path";
import { axeViolations, openBrowser, until } from "./browser.mjs";

const URL_ = process.env.DET_WEBUI_URL;
// The app lives under /det/, as upstream's WebUI does.
const APP = URL_ + "/det";
const A = Number(process.env.DET_WEBUI_EXP_A);
const B = Number(process.env.DET_WEBUI_EXP_B);
const SHOTS = process.env.DET_WEBUI_SHOTS;

function step(what) {
  console.log(`step: ${what}`);
}

function cliState(id) {
  const out = execFileSync("det", ["experiment", "describe", String(id), "--json"], {
    encoding: "utf8",
    stdio: ["ignore", "pipe", "ignore"],
    timeout: 60000,
  });
  return JSON.parse(out)[0].experiment.state;
}

function cliExperiment(id) {
  const out = execFileSync("det", ["experiment", "describe", String(id), "--json"], {
    encoding: "utf8",
    stdio: ["ignore", "pipe", "ignore"],
    timeout: 60000,
  });
  return JSON.parse(out)[0].experiment;
}

async function api(token, p) {
  const r = await fetch(URL_ + p, { headers: { Authorization: "Bearer " + token } });
  if (!r.ok) throw new Error(`${p}: ${r.status}`);
  return r.text();
}

const b = await openBrowser();
const page = b.page;
let shot = 0;
// Every page screenshot is also checked with axe-core: no serious or
// critical accessibility violation.
const a11y = [];
const snap = async (name) => {
  shot += 1;
  await page.screenshot({ path: path.join(SHOTS, `${String(shot).padStart(2, "0")}-${name}.png`), fullPage: true });
  if (name !== "failure") for (const v of await axeViolations(page)) a11y.push(`${name}: ${v}`);
};
const attr = async (sel, name) => page.locator(sel).first().getAttribute(name, { timeout: 2000 }).catch(() => null);

try {
  step("signed out, / redirects to the app under /det/ and shows the sign-in page");
  await page.goto(URL_ + "/");
  await page.waitForSelector("[data-testid=login-form]");
  if (!new URL(page.url()).pathname.startsWith("/det/")) throw new Error("the app is not under /det/: " + page.url());
  await snap("sign-in");

  step("sign in as admin with the blank default password");
  await page.fill("input[name=username]", "admin");
  await page.fill("input[name=password]", "");
  await page.click("[data-testid=sign-in]");
  await page.waitForSelector("[data-testid=who]");
  const who = await page.textContent("[data-testid=who]");
  if (!who.includes("admin")) throw new Error("signed in as " + who);
  const token = await page.evaluate(() => localStorage.getItem("det.token"));

  step("the experiments list shows both experiments (submitted with the det CLI)");
  await page.waitForSelector(`[data-testid=experiments] tr[data-id="${A}"]`);
  await page.waitForSelector(`[data-testid=experiments] tr[data-id="${B}"]`);
  await snap("experiments");

  step("the list sorts and filters on the master");
  const rowIds = async () => page.$$eval("[data-testid=experiments] tbody tr", (rows) => rows.map((r) => Number(r.dataset.id)));
  await page.click("[data-testid=experiments] th >> text=ID");
  await until("ascending ids", async () => JSON.stringify(await rowIds()) === JSON.stringify([A, B].sort((x, y) => x - y)), 10000);
  if (!page.url().includes("sortBy=SORT_BY_ID") || !page.url().includes("orderBy=ORDER_BY_ASC")) throw new Error("sort not in the URL: " + page.url());
  await page.click("[data-testid=experiments] th >> text=ID");
  await until("descending ids", async () => JSON.stringify(await rowIds()) === JSON.stringify([A, B].sort((x, y) => y - x)), 10000);
  await page.fill("[data-testid=filter-name]", "webui-a");
  await page.press("[data-testid=filter-name]", "Enter");
  await until("only A", async () => JSON.stringify(await rowIds()) === JSON.stringify([A]), 10000);
  if ((await attr("[data-testid=experiments]", "data-total")) !== "1") throw new Error("filtered total");
  await page.fill("[data-testid=filter-name]", "");
  await page.press("[data-testid=filter-name]", "Enter");
  await until("both again", async () => (await rowIds()).length === 2, 10000);

  step("the cluster page shows agents while trials run");
  await page.click("nav >> text=Cluster");
  await until("an agent on the cluster page", async () => Number(await attr("[data-testid=agents]", "data-count")) > 0, 90000);
  await page.waitForSelector("[data-testid=pool-default]");
  await snap("cluster-with-agents");

  step("experiment A completes on its page");
  await page.click("nav >> text=Experiments");
  await page.click(`[data-testid=experiments] tr[data-id="${A}"] a`);
  await until("A's page under /det/", async () => new URL(page.url()).pathname === `/det/experiments/${A}`, 10000);
  await until("experiment A to complete", async () => (await attr("[data-testid=exp-state]", "data-state")) === "STATE_COMPLETED", 120000);

  step("its chart has one series per trial with every reported point");
  const trials = JSON.parse(await api(token, `/api/v1/experiments/${A}/trials`)).trials;
  const metric = JSON.parse(await api(token, `/api/v1/experiments/${A}`)).experiment.searcherMetric;
  const lines = (await api(token, "/api/v1/trials/metrics/trial_metrics?" + trials.map((t) => "trialIds=" + t.id).join("&") + "&group=validation"))
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l).result.metrics);
  const reported = lines.flat().filter((m) => m.group === "validation" && typeof (m.metrics.validation_metrics ?? m.metrics.avg_metrics ?? {})[metric] === "number");
  if (trials.length < 2 || reported.length === 0) throw new Error(`expected reports from ${trials.length} trials, got ${reported.length}`);
  const perTrial = new Set(reported.map((m) => m.trialId));
  await until(
    `the chart to draw ${perTrial.size} series and ${reported.length} points`,
    async () =>
      (await attr("[data-testid=exp-chart]", "data-drawn")) === "1" &&
      Number(await attr("[data-testid=exp-chart]", "data-series")) === perTrial.size &&
      Number(await attr("[data-testid=exp-chart]", "data-points")) === reported.length,
    30000,
  );
  const legend = await page.textContent("[data-testid=exp-chart] .u-legend");
  for (const t of perTrial) if (!legend.includes("trial " + t)) throw new Error(`no legend entry for trial ${t}: ${legend}`);
  if ((await page.locator("[data-testid=trials] tbody tr").count()) !== trials.length) throw new Error("trials table rows");
  await snap("experiment-completed");
  for (const tab of ["hyperparameters", "checkpoints", "config"]) {
    await page.click(`[data-testid=tab-${tab}]`);
    if (tab === "config") {
      const yaml = await page.textContent("[data-testid=config-yaml]");
      if (!yaml.includes("searcher:") || !yaml.includes("metric: " + metric)) throw new Error("config YAML: " + yaml.slice(0, 200));
    }
    if (tab === "checkpoints") await page.waitForSelector("[data-testid=checkpoints] tbody tr");
    if (tab === "hyperparameters") await page.waitForSelector("[data-testid=parallel]");
    await snap("experiment-" + tab);
  }

  step("edit A's name, description and labels on its page; the CLI sees them");
  await page.goto(APP + `/experiments/${A}`);
  await page.click("[data-testid=edit]");
  await page.fill("[data-testid=edit-name]", "");
  await page.click("[data-testid=edit-save]");
  await page.waitForSelector("[data-testid=edit-error]");
  const refusal = await page.textContent("[data-testid=edit-error]");
  if (!refusal.includes("name")) throw new Error("an empty name was not refused naming it: " + refusal);
  await page.fill("[data-testid=edit-name]", "webui-a-renamed");
  await page.fill("[data-testid=edit-description]", "edited in the browser");
  await page.fill("[data-testid=edit-labels]", "blue, green");
  await page.click("[data-testid=edit-save]");
  await until("the page to show the new name", async () => (await page.textContent("h1")).includes("webui-a-renamed"), 10000);
  const edited = cliExperiment(A);
  if (edited.name !== "webui-a-renamed" || edited.description !== "edited in the browser" || JSON.stringify(edited.labels) !== '["blue","green"]')
    throw new Error("the CLI sees " + JSON.stringify([edited.name, edited.description, edited.labels]));
  await snap("experiment-edited");

  step("archive A on its page; the list leaves it out unless asked; unarchive it there");
  await page.click("[data-testid=archive]");
  await until("A archived", async () => JSON.parse(await api(token, `/api/v1/experiments/${A}`)).experiment.archived === true, 10000);
  await page.click("nav >> text=Experiments");
  await until("the list without A", async () => { const ids = await rowIds(); return ids.includes(B) && !ids.includes(A); }, 10000);
  await page.click("[data-testid=show-archived]");
  await until("A among archived ones", async () => (await rowIds()).includes(A), 10000);
  await page.check(`[aria-label="select ${A}"]`);
  await page.click("[data-testid=bulk-unarchive]");
  await until("A unarchived", async () => JSON.parse(await api(token, `/api/v1/experiments/${A}`)).experiment.archived === false, 10000);

  step("B's trial page shows its logs while it runs");
  const bTrial = await until("B's trial", async () => JSON.parse(await api(token, `/api/v1/experiments/${B}/trials`)).trials[0], 30000);
  await until("B's trial to run", async () => JSON.parse(await api(token, `/api/v1/trials/${bTrial.id}`)).trial.state === "STATE_RUNNING", 90000);
  await page.goto(APP + `/trials/${bTrial.id}`);
  await page.waitForSelector("[data-testid=trial-state]");
  await page.click("[data-testid=tab-logs]");
  const before = Number(await attr("[data-testid=logs]", "data-lines"));
  await until("log lines to arrive", async () => Number(await attr("[data-testid=logs]", "data-lines")) > before && Number(await attr("[data-testid=logs]", "data-lines")) > 0, 60000);
  const first = Number(await attr("[data-testid=logs]", "data-lines"));
  await until("more log lines while the trial runs", async () => Number(await attr("[data-testid=logs]", "data-lines")) > first, 60000);
  const stateNow = JSON.parse(await api(token, `/api/v1/trials/${bTrial.id}`)).trial.state;
  if (stateNow !== "STATE_RUNNING") throw new Error("the trial stopped before its logs were seen: " + stateNow);
  await snap("trial-logs");
  await page.click("[data-testid=tab-timeline]");
  await page.waitForSelector("[data-testid=timeline] li[data-type=trial_placed]");
  await snap("trial-timeline");
  await page.click("[data-testid=tab-overview]");
  await page.waitForSelector("[data-testid=hparams]");
  await snap("trial-overview");

  step("pause B on its page; the CLI sees it paused");
  await page.goto(APP + `/experiments/${B}`);
  await page.waitForSelector("[data-testid=pause]:not([disabled])");
  await page.click("[data-testid=pause]");
  await until("the page to show B paused", async () => (await attr("[data-testid=exp-state]", "data-state")) === "STATE_PAUSED", 30000);
  await until("the CLI to show B paused", () => cliState(B) === "STATE_PAUSED", 30000, 1000);
  await snap("experiment-paused");

  step("activate B on its page; the CLI sees it active");
  await page.click("[data-testid=activate]");
  // Active again: QUEUED, PULLING or RUNNING by its trials, as upstream shows it.
  const active = ["STATE_QUEUED", "STATE_PULLING", "STATE_RUNNING"];
  await until("the page to show B active", async () => active.includes(await attr("[data-testid=exp-state]", "data-state")), 30000);
  await until("the CLI to show B active", () => active.includes(cliState(B)), 30000, 1000);

  step("B's trial timeline shows it placed again, resuming from its checkpoint");
  await page.goto(APP + `/trials/${bTrial.id}`);
  await page.click("[data-testid=tab-timeline]");
  await until("a second placement that resumes from a checkpoint", async () => (await page.locator("[data-testid=timeline] li[data-type=trial_placed]").count()) >= 2, 90000, 500);
  const placed = await page.locator("[data-testid=timeline] li[data-type=trial_placed]").last().textContent();
  if (!placed.includes("resumes from checkpoint")) throw new Error("second placement: " + placed);
  await page.waitForSelector("[data-testid=timeline] li[data-type=trial_exited]");
  await snap("trial-timeline-resumed");

  step("the job queue lists B");
  await page.click("nav >> text=Job queue");
  await page.waitForSelector(`[data-testid=jobs] tr[data-id="${B}"]`);
  await snap("job-queue");

  step("change B's priority on the job queue page; the API sees it");
  await page.fill(`[data-testid=priority-${B}]`, "7");
  await page.click(`[data-testid=priority-set-${B}]`);
  await until("B at priority 7", async () => JSON.parse(await api(token, "/api/v1/job-queues")).jobs.find((j) => j.entityId === String(B) || Number(j.entityId) === B)?.priority === 7, 10000);

  step("kill B with the list's bulk action; the CLI sees it canceled");
  await page.click("nav >> text=Experiments");
  await page.check(`[data-testid=experiments] tr[data-id="${B}"] input[type=checkbox]`);
  await page.click("[data-testid=bulk-kill]");
  await until("the CLI to show B canceled", () => cliState(B) === "STATE_CANCELED", 60000, 1000);
  await until("the list to show B canceled", async () => (await attr(`[data-testid=experiments] tr[data-id="${B}"]`, "data-state")) === "STATE_CANCELED", 30000);
  await snap("experiments-after-kill");

  step("the event log page (admin) shows the log");
  await page.click("nav >> text=Event log");
  await page.waitForSelector("[data-testid=events] tbody tr");
  await page.locator("[data-testid=events] tbody tr button.link").first().click();
  await page.waitForSelector("[data-testid=state-at] pre");
  await snap("event-log");

  step("the cluster page shows the agents gone once the pool scaled down");
  await page.click("nav >> text=Cluster");
  await until("no agent on the cluster page", async () => (await attr("[data-testid=agents]", "data-count")) === "0", 90000);
  await snap("cluster-scaled-down");

  step("an unknown page says so");
  await page.goto(APP + "/no/such/page");
  await page.waitForSelector("text=Not found");

  step("sign out");
  await page.click("[data-testid=sign-out]");
  await page.waitForSelector("[data-testid=login-form]");
  if (await page.evaluate(() => localStorage.getItem("det.token"))) throw new Error("the token outlived sign-out");

  if (b.errors.length) throw new Error("errors in the browser:\n" + b.errors.join("\n"));
  if (a11y.length) throw new Error("accessibility violations (serious or critical):\n" + a11y.join("\n"));
  console.log(`ok: ${shot} screenshots in ${SHOTS}`);
} catch (e) {
  await snap("failure").catch(() => {});
  console.error(`FAILED: ${e.stack || e}`);
  if (b.errors.length) console.error("browser errors:\n" + b.errors.join("\n"));
  if (a11y.length) console.error("accessibility:\n" + a11y.join("\n"));
  process.exitCode = 1;
} finally {
  await b.close();
}
